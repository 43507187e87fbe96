import { fromBinary } from "@bufbuild/protobuf";
import { type Job, queues, type Subscription } from "@junction/bus";
import { type ScriptJob, ScriptJobSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { exponentialDelay, type Logger } from "@junction/platform";
import type { ScriptsServiceContext } from "../context.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { runScriptJob, type ScriptJobOutcome, type ScriptJobRunDeps } from "./script-job-runs.ts";

/**
 * How long an onWebhook job that finds every onWebhook slot busy goes back to the queue. The wait is a
 * redelivery: it counts in the job's delivery count (and so in the run's `attempt`).
 */
const WEBHOOK_SLOT_WAIT_MS = 1000;

/**
 * Consumes `scripts.runs`: new connections (schedules, then one job per post-connection-creation
 * script), lifecycle runs and onWebhook runs. A job is acked once its run is recorded. A run that
 * failed because something was unavailable (see FinishedRun.transient) is tried again with backoff
 * (retryBaseMs doubling up to retryMaxMs, at most maxAttempts runs, each recorded with its attempt
 * number); a script that throws for its own reasons is a recorded failed run, not a retry loop.
 * Async actions are the exception: any failure is tried again, as often as X-Max-Retries said.
 * onWebhook runs take at most `jobConcurrency - 1` of the worker's `jobConcurrency` slots (all of
 * one slot): looping onWebhook runs cannot hold every slot, so lifecycle and async action jobs
 * always get one.
 */
export function startScriptJobWorker(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  scheduler: SyncScheduler,
): Promise<Subscription> {
  const log = ctx.logger.child({ worker: "script-jobs" });
  const deps: ScriptJobRunDeps = { ctx, runner, scheduler, log };
  let webhookRuns = 0;
  const webhookSlots = Math.max(1, ctx.config.jobConcurrency - 1);
  const backoff = (attempt: number) => exponentialDelay(attempt - 1, ctx.config.retryBaseMs, ctx.config.retryMaxMs);

  return ctx.bus.consume(
    queues.scriptRuns,
    async (job) => {
      let msg: ScriptJob;
      try {
        msg = fromBinary(ScriptJobSchema, job.data);
      } catch (err) {
        log.error("undecodable script job dropped", { error: err });
        await job.term();
        return;
      }
      const attempt = job.deliveryCount;
      const webhook = msg.job.case === "webhookRun";
      if (webhook && webhookRuns >= webhookSlots) {
        await job.nak(WEBHOOK_SLOT_WAIT_MS);
        return;
      }
      if (webhook) webhookRuns++;
      let outcome: ScriptJobOutcome;
      try {
        outcome = await runScriptJob(deps, job, msg);
      } catch (err) {
        // Not the script's doing: a store or service failed before or after the run.
        if (attempt >= ctx.config.maxAttempts) {
          log.error("script job given up", { kind: msg.job.case, attempt, error: err });
          await job.term();
          return;
        }
        log.warn("script job failed; it will be tried again", { kind: msg.job.case, attempt, error: err });
        await job.nak(backoff(attempt));
        return;
      } finally {
        if (webhook) webhookRuns--;
      }
      await settle(job, msg.job.case, outcome, ctx.config.maxAttempts, log, backoff);
    },
    {
      concurrency: ctx.config.jobConcurrency,
      // A job is acked after its run: the wait must outlast the longest run, its wait for a
      // sandbox process included.
      ackWaitMs: ctx.config.queueTimeoutMs + ctx.limits.timeoutMs * 2 + 30_000,
    },
  );
}

/** Acks a run's job, or asks for it again (with backoff) when its outcome says another attempt is due. */
async function settle(
  job: Job,
  kind: ScriptJob["job"]["case"],
  outcome: ScriptJobOutcome,
  maxAttempts: number,
  log: Logger,
  backoff: (attempt: number) => number,
): Promise<void> {
  const attempt = job.deliveryCount;
  if (outcome === "again" || (outcome === "retry" && attempt < maxAttempts)) {
    log.warn(
      outcome === "again"
        ? "action run failed; it will be tried again"
        : "script run failed on an unavailable service; it will be tried again",
      { kind, attempt, retryInMs: backoff(attempt) },
    );
    await job.nak(backoff(attempt));
    return;
  }
  if (outcome === "retry") log.error("script run given up after its last attempt", { kind, attempt });
  await job.ack();
}
