import type { ServiceImpl } from "@connectrpc/connect";
import { RunStatus, RunTrigger, type ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { parseId } from "@junction/platform";
import { MAX_RUN_PAGE } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { errors } from "../errors.ts";
import { nameOf, STATUSES, TRIGGERS, toScriptRun } from "../mappers.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "listRuns" | "getRun" | "cancelRun">;

const CANCELLED = "the run was cancelled (POST /scripts/runs/{id}/cancel) and its sandbox process stopped";
const CANCELLED_UNSTARTED = "the run was cancelled (POST /scripts/runs/{id}/cancel) before it started";

/**
 * ListRuns and GetRun: the record of runs (spec: "Every run is recorded"); CancelRun (a long-running run is visible and cancellable).
 */
export function runHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner): Handlers {
  return {
    async listRuns(req) {
      const env = await ctx.environment();
      const limit = req.limit === 0 ? 100 : req.limit;
      if (limit < 1 || limit > MAX_RUN_PAGE)
        throw errors.invalidField("limit", `must be between 1 and ${MAX_RUN_PAGE}`);
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
    },

    async getRun(req) {
      const env = await ctx.environment();
      const id = parseId("run", req.id);
      const run = await ctx.runs.get(env, id);
      if (!run) throw errors.unknownRun(id);
      return { run: toScriptRun(run, true) };
    },

    async cancelRun(req) {
      const env = await ctx.environment();
      const id = parseId("run", req.id);
      const run = await ctx.runs.get(env, id);
      if (!run) throw errors.unknownRun(id);
      if (run.status !== "running") throw errors.runNotRunning(id, run.status);
      const ending = runner.cancel(id, CANCELLED);
      if (ending) {
        await ending;
      } else {
        // Not held here: an async action waiting in the queue (its worker finds it ended and skips
        // it), or a run whose process died. Ended now, without running.
        const at = ctx.clock.now();
        await ctx.runs.finish(env, id, {
          status: "failed",
          finishedAt: at,
          durationMs: Math.max(0, at - run.startedAt),
          logs: [],
          logsTruncated: false,
          error: { name: "CancelledError", message: CANCELLED_UNSTARTED },
        });
      }
      ctx.logger.info("script run cancelled", {
        runId: id,
        script: run.scriptName,
        integration: run.providerConfigKey,
      });
      const ended = await ctx.runs.get(env, id);
      return { run: toScriptRun(ended ?? run, true) };
    },
  };
}
