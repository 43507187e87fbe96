import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import { dataOf, type RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { presentScript, presentVersion, scriptAnswer, versionAnswer } from "./present-scripts.ts";

/** A script's source is at most 1 MiB; JSON escaping can double it. */
const DEPLOY_BODY_LIMIT = 2 * 1024 * 1024 + 4096;

const key = z.string().min(1).max(255);
const deployBody = z
  .object({
    provider_config_key: key,
    name: z.string().min(1).max(64),
    filename: z.string().min(1).max(255).optional(),
    source: z.string().min(1),
    forward_webhooks_too: z.boolean().optional(),
  })
  .strict();
const listQuery = z.object({ provider_config_key: key.optional() }).strict();

const scriptParams = { integration: "The integration's id.", name: "The script's name." };
const scriptWithSourceAnswer = dataOf(scriptAnswer.extend({ source: z.string(), versions: z.array(versionAnswer) }));

/** One script: its latest version with the source, and every version. */
export async function getScript(ctx: RouteContext, integration: string, name: string): Promise<Response> {
  const res = await ctx.clients.scripts.getScript({ providerConfigKey: integration, name });
  return json({
    data: { ...presentScript(res.script), source: res.source, versions: res.versions.map(presentVersion) },
  });
}

/** POST and GET /scripts, GET and DELETE /scripts/{integration}/{name} (spec: Upload and deploy). */
export function scriptRoutes(): Route[] {
  return [
    { method: "POST", pattern: "/scripts", handler: deployScript, doc: deployDoc },
    { method: "GET", pattern: "/scripts", handler: listScripts, doc: listDoc },
    {
      method: "GET",
      pattern: "/scripts/:integration/:name",
      handler: (ctx) => getScript(ctx, ctx.params.integration as string, ctx.params.name as string),
      doc: getDoc,
    },
    { method: "DELETE", pattern: "/scripts/:integration/:name", handler: removeScript, doc: removeDoc },
  ];
}

/** Deploys a new version of a script. */
async function deployScript({ req, clients }: RouteContext): Promise<Response> {
  const body = parseWith(deployBody, await readJson(req, DEPLOY_BODY_LIMIT), "invalid_body", "body");
  const res = await clients.scripts.deployScript({
    providerConfigKey: body.provider_config_key,
    name: body.name,
    filename: body.filename ?? "",
    source: body.source,
    ...(body.forward_webhooks_too === undefined ? {} : { forwardWebhooksToo: body.forward_webhooks_too }),
  });
  return json({ data: presentScript(res.script) }, 201);
}

async function listScripts({ url, clients }: RouteContext): Promise<Response> {
  const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
  const res = await clients.scripts.listScripts({ providerConfigKey: q.provider_config_key ?? "" });
  return json({ data: res.scripts.map(presentScript) });
}

async function removeScript({ params, clients }: RouteContext): Promise<Response> {
  const res = await clients.scripts.removeScript({
    providerConfigKey: params.integration as string,
    name: params.name as string,
  });
  return json({ data: { removed_versions: res.removedVersions } });
}

const deployDoc: RouteDoc = {
  summary: "Deploy a script",
  description: "A new version of the script (a sync or an on-event script); refused with the file, line and column.",
  tags: ["Scripts"],
  body: deployBody,
  responses: { 201: dataOf(scriptAnswer) },
  errors: ["invalid_script", "unknown_provider_config", "invalid_request", "concurrent_deployment"],
};

const listDoc: RouteDoc = {
  summary: "List deployed scripts",
  tags: ["Scripts"],
  query: listQuery,
  responses: { 200: dataOf(z.array(scriptAnswer)) },
  errors: [],
};

const getDoc: RouteDoc = {
  summary: "Get a script",
  description: "Its latest version with the source, and every version.",
  tags: ["Scripts"],
  params: scriptParams,
  responses: { 200: scriptWithSourceAnswer },
  errors: ["unknown_script"],
};

const removeDoc: RouteDoc = {
  summary: "Remove a script",
  description: "Every version of it.",
  tags: ["Scripts"],
  params: scriptParams,
  responses: { 200: dataOf(z.object({ removed_versions: z.number().int() })) },
  errors: ["unknown_script", "concurrent_deployment"],
};
