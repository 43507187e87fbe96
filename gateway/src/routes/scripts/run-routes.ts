import { RunStatus, RunTrigger } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, queryObject } from "../../http/read-json.ts";
import { dataOf, type RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { presentRun, RUN_STATUSES, RUN_TRIGGERS, runAnswer, runWithLogsAnswer } from "./present-scripts.ts";
import { getScript } from "./script-routes.ts";

type StatusName = keyof typeof RUN_STATUSES;
type TriggerName = keyof typeof RUN_TRIGGERS;

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    provider_config_key: str.optional(),
    connection_id: str.optional(),
    script: str.optional(),
    status: z.enum(Object.keys(RUN_STATUSES) as [StatusName, ...StatusName[]]).optional(),
    trigger: z.enum(Object.keys(RUN_TRIGGERS) as [TriggerName, ...TriggerName[]]).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    cursor: str.optional(),
  })
  .strict();

/**
 * GET /scripts/runs (newest first, filtered, paged by `cursor` = the previous page's `next_cursor`)
 * and GET /scripts/runs/{id} with the run's logs. They are listed before /scripts/{integration}/{name}:
 * for an integration named "runs", a name that is not a run id still reaches its script.
 */
export function runRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/scripts/runs", handler: listRuns, doc: listDoc },
    { method: "GET", pattern: "/scripts/runs/:id", handler: getRun, doc: getDoc },
    { method: "POST", pattern: "/scripts/runs/:id/cancel", handler: cancelRun, doc: cancelDoc },
  ];
}

async function listRuns({ url, clients }: RouteContext): Promise<Response> {
  const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
  const res = await clients.scripts.listRuns({
    providerConfigKey: q.provider_config_key ?? "",
    connectionId: q.connection_id ?? "",
    scriptName: q.script ?? "",
    status: q.status ? RUN_STATUSES[q.status] : RunStatus.UNSPECIFIED,
    trigger: q.trigger ? RUN_TRIGGERS[q.trigger] : RunTrigger.UNSPECIFIED,
    limit: q.limit ?? 0,
    cursor: q.cursor ?? "",
  });
  return json({ data: res.runs.map((r) => presentRun(r, false)), next_cursor: res.nextCursor || null });
}

/** A run with its logs; an id that is no run id names a script of integration `runs`. */
async function getRun(ctx: RouteContext): Promise<Response> {
  const id = ctx.params.id as string;
  if (!id.startsWith("run_")) return getScript(ctx, "runs", id);
  const res = await ctx.clients.scripts.getRun({ id });
  return json({ data: presentRun(res.run, true) });
}

async function cancelRun({ params, clients }: RouteContext): Promise<Response> {
  const res = await clients.scripts.cancelRun({ id: params.id as string });
  return json({ data: presentRun(res.run, true) });
}

const listDoc: RouteDoc = {
  summary: "List script runs",
  description: "Newest first; page with `cursor` = the previous page's `next_cursor`.",
  tags: ["Scripts"],
  query: listQuery,
  responses: { 200: z.object({ data: z.array(runAnswer), next_cursor: z.string().nullable() }) },
  errors: ["invalid_id", "invalid_request"],
};

const getDoc: RouteDoc = {
  summary: "Get a script run",
  description: "With its logs. (An id not starting with `run_` reads the script of that name of integration `runs`.)",
  tags: ["Scripts"],
  params: { id: "The run's id (run_...)." },
  responses: { 200: dataOf(runWithLogsAnswer) },
  errors: ["invalid_id", "unknown_run", "unknown_script"],
};

const cancelDoc: RouteDoc = {
  summary: "Cancel a script run",
  description:
    "Stops a `running` run: taken out of the line, or its sandbox process killed (what it did so far stays done). " +
    "It ends `failed` with a `CancelledError`, and is not tried again. Answers the ended run with its logs.",
  tags: ["Scripts"],
  params: { id: "The run's id (run_...)." },
  responses: { 200: dataOf(runWithLogsAnswer) },
  errors: ["invalid_id", "unknown_run", "run_not_running"],
};
