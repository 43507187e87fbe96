import {
  type DeployBundlesResponse,
  type PlannedScript,
  ScriptKind,
  type ScriptVersion,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { readTextLimited } from "@junction/platform";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import type { Route, RouteContext } from "../../router.ts";
import { checkCliVersion } from "./nango-cli-version.ts";
import { checkModelSchemas, type NangoDeployBody, nangoDeployBody } from "./nango-deploy-body.ts";

/** A whole `nango-integrations/` project: each bundle is at most 4 MiB, most are far smaller. */
const DEPLOY_BODY_LIMIT = 32 * 1024 * 1024;
const EVENT_NAMES = ["", "post-connection-creation", "pre-connection-deletion"] as const;

const slimSync = z.object({
  name: z.string(),
  providerConfigKey: z.string(),
  auto_start: z.boolean(),
  connections: z.number().int(),
});
const slimScript = z.object({ name: z.string(), providerConfigKey: z.string() });
const slimOnEvent = slimScript.extend({ event: z.string() });
const differencesAnswer = z
  .object({
    newSyncs: z.array(slimSync),
    updatedSyncs: z.array(slimSync),
    deletedSyncs: z.array(slimSync),
    newActions: z.array(slimScript),
    updatedActions: z.array(slimScript),
    deletedActions: z.array(slimScript),
    deletedModels: z.array(z.string()),
    newOnEventScripts: z.array(slimOnEvent),
    updatedOnEventScripts: z.array(slimOnEvent),
    deletedOnEventScripts: z.array(slimOnEvent),
  })
  .meta({ id: "ScriptDifferences" });
const deployedAnswer = z.array(
  z.object({
    name: z.string(),
    version: z.string(),
    providerConfigKey: z.string(),
    type: z.enum(["sync", "action"]),
    models: z.array(z.string()),
    id: z
      .number()
      .int()
      .describe("The script's new version number (1, 2, …), as `GET /scripts/{integration}/{name}` lists it."),
    runs: z.string().nullable(),
  }),
);
const errors = ["invalid_script", "invalid_cli_version", "unknown_provider_config"] as const;

/** Reads and checks the CLI's body, then asks the scripts service for the plan or the deploy. */
async function deployBundles(ctx: RouteContext, dryRun: boolean) {
  const body = parseWith(nangoDeployBody, await readJson(ctx.req, DEPLOY_BODY_LIMIT), "invalid_body", "body");
  checkCliVersion(body.sdkVersion, ctx.req.headers.get("user-agent"));
  checkModelSchemas(body);
  const bundles = [
    ...body.flowConfigs.map((f) => ({
      providerConfigKey: f.providerConfigKey,
      name: f.syncName,
      kind: f.type === "sync" ? ScriptKind.SYNC : ScriptKind.ACTION,
      bundle: f.fileBody.js,
      source: f.fileBody.ts,
      filename: `${f.providerConfigKey}/${f.type}s/${f.syncName}.ts`,
      ...(f.type === "sync" ? { autoStart: f.auto_start ?? false } : {}),
      models: f.type === "sync" ? f.models : [],
    })),
    ...(body.onEventScriptsByProvider ?? []).flatMap((p) =>
      p.scripts.map((s) => ({
        providerConfigKey: p.providerConfigKey,
        name: s.name,
        kind: ScriptKind.ON_EVENT,
        bundle: s.fileBody.js,
        source: s.fileBody.ts,
        filename: `${p.providerConfigKey}/on-events/${s.name}.ts`,
        models: [],
      })),
    ),
  ];
  const mode = body.deployMode ?? (body.singleDeployMode ? "single" : "all");
  const res = await ctx.clients.scripts.deployBundles({ bundles, mode, dryRun });
  return { body, res };
}

/** Nango's ScriptDifferences from the plan. */
function differences(res: DeployBundlesResponse) {
  const of = (list: PlannedScript[], kind: ScriptKind) => list.filter((p) => p.kind === kind);
  const sync = (p: PlannedScript) => ({
    name: p.name,
    providerConfigKey: p.providerConfigKey,
    auto_start: p.autoStart,
    connections: p.connections,
  });
  const action = (p: PlannedScript) => ({ name: p.name, providerConfigKey: p.providerConfigKey });
  const onEvent = (p: PlannedScript) => ({ ...action(p), event: EVENT_NAMES[p.event] ?? "" });
  return {
    newSyncs: of(res.added, ScriptKind.SYNC).map(sync),
    updatedSyncs: of(res.updated, ScriptKind.SYNC).map(sync),
    deletedSyncs: of(res.removed, ScriptKind.SYNC).map(sync),
    newActions: of(res.added, ScriptKind.ACTION).map(action),
    updatedActions: of(res.updated, ScriptKind.ACTION).map(action),
    deletedActions: of(res.removed, ScriptKind.ACTION).map(action),
    deletedModels: res.removedModels,
    newOnEventScripts: of(res.added, ScriptKind.ON_EVENT).map(onEvent),
    updatedOnEventScripts: of(res.updated, ScriptKind.ON_EVENT).map(onEvent),
    deletedOnEventScripts: of(res.removed, ScriptKind.ON_EVENT).map(onEvent),
  };
}

/** Nango's SyncDeploymentResult per flow (syncs and actions; lifecycle scripts are not listed). */
function deployed(body: NangoDeployBody, versions: ScriptVersion[]) {
  return body.flowConfigs.map((f, i) => {
    const v = versions[i];
    return {
      name: f.syncName,
      version: v?.declaration?.version || String(v?.version ?? ""),
      providerConfigKey: f.providerConfigKey,
      type: f.type,
      models: f.models,
      // Nango's is the id of its new sync config row; the version number is what names ours.
      id: v?.version ?? 0,
      runs: f.type === "sync" ? (v?.declaration?.frequency ?? f.runs ?? null) : null,
    };
  });
}

/** POST /sync/deploy/confirmation, POST /sync/deploy and POST /cli/telemetry: what `nango deploy` calls. */
export function nangoDeployRoutes(): Route[] {
  const common = { tags: ["Scripts"], body: nangoDeployBody, errors: [...errors] };
  return [
    {
      method: "POST",
      pattern: "/sync/deploy/confirmation",
      handler: async (ctx) => json(differences((await deployBundles(ctx, true)).res)),
      doc: {
        summary: "Plan a Nango CLI deploy",
        description:
          "What `nango deploy` asks first: the scripts it would add, update and remove (by `deployMode`), with the connections a removed sync runs for, and the models no sync keeps. Nothing is stored.",
        responses: { 200: differencesAnswer },
        ...common,
      },
    },
    {
      method: "POST",
      pattern: "/sync/deploy",
      handler: async (ctx) => {
        const { body, res } = await deployBundles(ctx, false);
        return json(deployed(body, res.deployed));
      },
      doc: {
        summary: "Deploy a Nango CLI project",
        description:
          "`nango deploy`: every script is checked first (nothing is stored if one is refused), then each gets a new version; `deployMode` `all` removes the environment's other scripts, `integration` those of the deployed integrations.",
        responses: { 200: deployedAnswer },
        ...common,
        errors: [...errors, "concurrent_deployment"],
      },
    },
    {
      method: "POST",
      pattern: "/cli/telemetry",
      auth: false,
      handler: async ({ req }) => {
        // The CLI reports its commands here; Junction keeps none of it.
        if (req.body) await readTextLimited(req.body, 64 * 1024, () => new Error("too large")).catch(() => "");
        return new Response(null, { status: 204 });
      },
      doc: {
        summary: "Nango CLI telemetry",
        description: "Accepted and dropped: the `nango` CLI posts its usage here. No secret key needed.",
        tags: ["Scripts"],
        rawBody: "Whatever the CLI sends; read up to 64 KiB and dropped.",
        responses: { 204: { description: "Nothing kept." } },
        errors: [],
      },
    },
  ];
}
