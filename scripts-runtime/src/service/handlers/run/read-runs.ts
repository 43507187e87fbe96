import {
  type GetRunRequest,
  type ListRunsRequest,
  RunStatus,
  RunTrigger,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { parseId } from "@junction/platform";
import { MAX_RUN_PAGE } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { nameOf, STATUSES, TRIGGERS, toScriptRun } from "../../mappers.ts";

/** ListRuns: runs newest first, a page at a time, filtered as asked. */
export async function listRuns(ctx: ScriptsServiceContext, req: ListRunsRequest) {
  const env = await ctx.environment();
  const limit = req.limit === 0 ? 100 : req.limit;
  if (limit < 1 || limit > MAX_RUN_PAGE) throw errors.invalidField("limit", `must be between 1 and ${MAX_RUN_PAGE}`);
  const status = nameOf(STATUSES, req.status);
  if (req.status !== RunStatus.UNSPECIFIED && !status) throw errors.invalidField("status", "must be a run status");
  const trigger = nameOf(TRIGGERS, req.trigger);
  if (req.trigger !== RunTrigger.UNSPECIFIED && !trigger) throw errors.invalidField("trigger", "must be a trigger");
  const before = req.cursor ? parseId("run", req.cursor, "cursor") : undefined;
  const runs = await ctx.runs.list(env, {
    ...(req.providerConfigKey ? { providerConfigKey: req.providerConfigKey } : {}),
    ...(req.connectionId ? { connectionId: req.connectionId } : {}),
    ...(req.scriptName ? { scriptName: req.scriptName } : {}),
    ...(status ? { status } : {}),
    ...(trigger ? { trigger } : {}),
    ...(before ? { before } : {}),
    limit,
  });
  const last = runs.at(-1);
  return {
    runs: runs.map((r) => toScriptRun(r, false)),
    nextCursor: runs.length === limit && last ? last.id : "",
  };
}

/** GetRun: one run with its logs. */
export async function getRun(ctx: ScriptsServiceContext, req: GetRunRequest) {
  const env = await ctx.environment();
  const id = parseId("run", req.id);
  const run = await ctx.runs.get(env, id);
  if (!run) throw errors.unknownRun(id);
  return { run: toScriptRun(run, true) };
}
