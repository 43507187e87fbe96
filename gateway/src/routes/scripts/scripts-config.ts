import type { JsonObject } from "@bufbuild/protobuf";
import { type Script, ScriptKind } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { iso } from "../../http/json.ts";

/** The model names of an action's declared schemas in Nango's `json_schema.definitions`. */
const INPUT_MODEL = "Input";
const OUTPUT_MODEL = "Output";

type Schema = Record<string, unknown>;

/** One script as Nango's NangoSyncConfig (GET /scripts/config?format=nango). */
function nangoScriptConfig(script: Script) {
  const v = script.latest;
  const d = v?.declaration;
  const input = d?.inputSchema as JsonObject | undefined;
  const output = d?.outputSchema as JsonObject | undefined;
  const definitions: Record<string, JsonObject> = {};
  if (input) definitions[INPUT_MODEL] = input;
  if (output) definitions[OUTPUT_MODEL] = output;
  const type = d?.kind === ScriptKind.SYNC ? "sync" : d?.kind === ScriptKind.ACTION ? "action" : "on-event";
  return {
    name: v?.name ?? "",
    type,
    returns: output ? [OUTPUT_MODEL] : [],
    description: d?.description ?? "",
    attributes: {},
    scopes: [],
    version: d?.version || null,
    endpoints: (d?.endpoints ?? []).map((e) => ({ method: e.method, path: e.path })),
    ...(input ? { input: INPUT_MODEL } : {}),
    enabled: true,
    last_deployed: iso(v?.createdAtMs ?? 0n),
    webhookSubscriptions: d?.webhookSubscriptions ?? [],
    json_schema: Object.keys(definitions).length > 0 ? { definitions } : null,
    sdk_version: null,
    models: Object.keys(definitions).map((name) => ({ name, fields: [] })),
    features: [],
    ...(type === "sync"
      ? { sync_type: "full", auto_start: d?.autoStart ?? false, runs: d?.frequency ?? null, track_deletes: false }
      : {}),
  };
}

/**
 * The environment's scripts as Nango's StandardNangoConfig list: one entry per integration with a
 * deployed script (its syncs, actions and on-event scripts), integrations in the order given.
 */
export function nangoScriptsConfig(scripts: Script[], providers: Map<string, string>) {
  const byIntegration = new Map<string, ReturnType<typeof emptyConfig>>();
  for (const script of scripts) {
    const key = script.latest?.providerConfigKey ?? "";
    let config = byIntegration.get(key);
    if (!config) {
      config = emptyConfig(key, providers.get(key));
      byIntegration.set(key, config);
    }
    const flow = nangoScriptConfig(script);
    (flow.type === "sync" ? config.syncs : flow.type === "action" ? config.actions : config["on-events"]).push(flow);
  }
  return [...byIntegration.values()];
}

function emptyConfig(providerConfigKey: string, provider: string | undefined) {
  type Flow = ReturnType<typeof nangoScriptConfig>;
  return {
    providerConfigKey,
    ...(provider ? { provider } : {}),
    syncs: [] as Flow[],
    actions: [] as Flow[],
    "on-events": [] as Flow[],
  };
}

/**
 * Syncs and actions as OpenAI function definitions, as Nango derives them: a sync takes no
 * parameters; an action's are its input schema's properties, each described by a `- name: words`
 * line of the action's description when there is one.
 */
export function openAiFunctions(scripts: Script[], providers: Map<string, string>) {
  return scripts.flatMap((script) => {
    const v = script.latest;
    const d = v?.declaration;
    if (!v || (d?.kind !== ScriptKind.SYNC && d?.kind !== ScriptKind.ACTION)) return [];
    const provider = providers.get(v.providerConfigKey) ?? v.providerConfigKey;
    const what = d.kind === ScriptKind.SYNC ? "sync" : "action";
    const input = (d.kind === ScriptKind.ACTION ? d.inputSchema : undefined) as Schema | undefined;
    const properties: Record<string, Schema> = { ...((input?.properties as Record<string, Schema>) ?? {}) };
    for (const [name, description] of parameterDescriptions(d.description)) {
      const property = properties[name];
      if (property) properties[name] = { ...property, description };
    }
    return [
      {
        name: v.name,
        description: d.description || `Execute the ${v.name} ${what} for ${provider}`,
        parameters: {
          type: "object",
          properties,
          required: Array.isArray(input?.required) ? (input.required as string[]) : [],
        },
      },
    ];
  });
}

/** `- name: words` lines of a description. */
function parameterDescriptions(description: string): [string, string][] {
  const found: [string, string][] = [];
  for (const line of description.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("-")) continue;
    const content = trimmed.slice(1).trim();
    const colon = content.indexOf(":");
    if (colon !== -1) found.push([content.slice(0, colon).trim(), content.slice(colon + 1).trim()]);
  }
  return found;
}
