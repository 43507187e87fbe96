import type { CancelRunRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { parseId } from "@junction/platform";
import type { ScriptsServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toScriptRun } from "../../mappers.ts";
import type { ScriptRunner } from "../../script-runner.ts";

const CANCELLED = "the run was cancelled (POST /scripts/runs/{id}/cancel) and its sandbox process stopped";
const CANCELLED_UNSTARTED = "the run was cancelled (POST /scripts/runs/{id}/cancel) before it started";

/** CancelRun: a running run stopped (its sandbox process killed), or ended at once when no process holds it. */
export async function cancelRun(ctx: ScriptsServiceContext, runner: ScriptRunner, req: CancelRunRequest) {
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
}
