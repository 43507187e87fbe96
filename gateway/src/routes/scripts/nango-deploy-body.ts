import { invalidArgument } from "@junction/platform";
import { z } from "zod";

/**
 * The body `nango deploy` posts (Nango's CLIDeployFlowConfig and its envelope,
 * packages/types/lib/deploy): checked field by field, unknown fields refused as Nango refuses them.
 */
const fileBody = z.object({ js: z.string().min(1), ts: z.string() }).strict();
const endpoint = z.union([
  z
    .object({
      method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
      path: z.string().min(1).max(1024),
      group: z.string().max(64).optional(),
    })
    .strict(),
  z.record(z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]), z.string().max(1024)),
]);
const flowConfig = z
  .object({
    type: z.enum(["sync", "action"]),
    syncName: z.string().min(1).max(64),
    providerConfigKey: z.string().min(1).max(255),
    models: z.array(z.string().min(1).max(255)).max(50),
    runs: z.string().max(255).nullable().optional(),
    auto_start: z.boolean().optional(),
    attributes: z.looseObject({}).optional(),
    metadata: z
      .object({ scopes: z.array(z.string().max(255)).optional(), description: z.string().max(2000).optional() })
      .strict()
      .optional(),
    input: z.string().max(255).optional(),
    endpoints: z.array(endpoint).max(50).optional(),
    fileBody,
    version: z.string().max(255).optional(),
    track_deletes: z.boolean().optional(),
    sync_type: z.enum(["full", "incremental"]).optional(),
    webhookSubscriptions: z.array(z.string().max(255)).optional(),
    models_json_schema: z.object({ definitions: z.record(z.string(), z.looseObject({})) }).optional(),
    features: z.array(z.string().max(64)).optional(),
    model_schema: z.unknown().optional(),
  })
  .strict();
const onEventScripts = z
  .object({
    providerConfigKey: z.string().min(1).max(255),
    scripts: z.array(
      z
        .object({
          name: z.string().min(1).max(64),
          fileBody,
          event: z.enum(["post-connection-creation", "pre-connection-deletion"], {
            error:
              'must be "post-connection-creation" or "pre-connection-deletion" (Junction has no validate-connection scripts)',
          }),
        })
        .strict(),
    ),
  })
  .strict();

export const nangoDeployBody = z
  .object({
    flowConfigs: z.array(flowConfig).max(500),
    onEventScriptsByProvider: z.array(onEventScripts).max(500).optional(),
    deployMode: z.enum(["all", "integration", "single"]).optional(),
    singleDeployMode: z.boolean().optional(),
    reconcile: z.boolean(),
    debug: z.boolean(),
    sdkVersion: z.string().max(64).optional(),
    nangoYamlBody: z.string().optional(),
    source: z.enum(["standalone", "repo"]).optional(),
    jsonSchema: z.unknown().optional(),
  })
  .strict();
export type NangoDeployBody = z.infer<typeof nangoDeployBody>;
export type FlowConfig = NangoDeployBody["flowConfigs"][number];

/**
 * Every model a flow names (its `models`, an action's `input`) must have its JSON Schema in
 * `models_json_schema`: the CLI sends them from 0.69.46 on, and records are checked against them.
 */
export function checkModelSchemas(body: NangoDeployBody): void {
  const errors = [];
  for (const [i, flow] of body.flowConfigs.entries()) {
    const definitions = flow.models_json_schema?.definitions ?? {};
    for (const model of [...flow.models, ...(flow.input ? [flow.input] : [])]) {
      if (model in definitions) continue;
      const message = `has no JSON Schema for model "${model}" of ${flow.syncName}`;
      errors.push({ location: "body" as const, path: `flowConfigs.${i}.models_json_schema`, message });
    }
  }
  if (errors.length > 0) {
    const first = errors[0] as { path: string; message: string };
    throw invalidArgument("invalid_body", `${first.path} ${first.message}.`, errors);
  }
}
