import { fromBinary } from "@bufbuild/protobuf";
import { type Job, queues, type Subscription } from "@junction/bus";
import {
  type LifecycleRunJob,
  type ScriptJob,
  ScriptJobSchema,
  type WebhookRunJob,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { exponentialDelay, fromConnectError } from "@junction/platform";
import type { ScriptsServiceContext } from "../context.ts";
import { EVENTS, nameOf } from "../mappers.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { runActionJob } from "./action-runs.ts";
import { onConnectionCreated } from "./lifecycle-runs.ts";
import { derivedCreatedMsgId } from "./script-jobs.ts";

/**
 * How long an onWebhook job that finds every onWebhook slot busy goes back to the queue. The wait is a
 * redelivery: it counts in the job's delivery count (and so in the run's `attempt`).
 */
const WEBHOOK_SLOT_WAIT_MS = 1000;

/** "again": the run asks for another delivery whatever maxAttempts says (an async action's retries). */
type Outcome = "done" | "retry" | "again";

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
  let webhookRuns = 0;
  const webhookSlots = Math.max(1, ctx.config.jobConcurrency - 1);
  const backoff = (attempt: number) => exponentialDelay(attempt - 1, ctx.config.retryBaseMs, ctx.config.retryMaxMs);

  const handle = async (job: Job, msg: ScriptJob): Promise<Outcome> => {
    switch (msg.job.case) {
      case "connectionCreated": {
        const event = msg.job.value;
        await onConnectionCreated(ctx, scheduler, event, job.msgId ?? derivedCreatedMsgId(event));
        return "done";
      }
      case "lifecycleRun":
        return runLifecycle(msg.job.value, job.deliveryCount);
      case "webhookRun":
        return runWebhook(msg.job.value, job.deliveryCount);
      case "actionRun":
        return runActionJob(ctx, runner, msg.job.value, job.deliveryCount);
      default:
        log.error("script job of an unknown kind dropped");
        return "done";
    }
  };

  const runLifecycle = async (j: LifecycleRunJob, attempt: number): Promise<Outcome> => {
    const event = nameOf(EVENTS, j.event);
    const version = await ctx.scripts.getLatest(j.environmentId, j.providerConfigKey, j.scriptName);
    if (!event || !version || version.declaration.kind !== "on-event" || version.declaration.event !== event) {
      log.info("lifecycle script no longer deployed; run dropped", {
        script: j.scriptName,
        connectionId: j.connectionId,
      });
      return "done";
    }
    if (!(await connectionExists(j.providerConfigKey, j.connectionId))) {
      log.info("connection gone before its lifecycle script ran", {
        script: j.scriptName,
        connectionId: j.connectionId,
      });
      return "done";
    }
    const started = await runner.start({
      version,
      connectionId: j.connectionId,
      trigger: "event",
      entry: "exec",
      attempt,
    });
    return (await started.finished).transient ? "retry" : "done";
  };

  const runWebhook = async (j: WebhookRunJob, attempt: number): Promise<Outcome> => {
    const version = await ctx.scripts.getLatest(j.environmentId, j.providerConfigKey, j.scriptName);
    if (version?.declaration.kind !== "sync" || !version.declaration.hasOnWebhook) {
      log.info("webhook subscription no longer deployed; run dropped", { script: j.scriptName });
      return "done";
    }
    if (!(await connectionExists(j.providerConfigKey, j.connectionId))) {
      log.info("connection gone before its onWebhook ran", { script: j.scriptName, connectionId: j.connectionId });
      return "done";
    }
    // onWebhook gets the message that would have been forwarded (spec: Forwarded webhook message).
    const input = {
      from: j.provider,
      type: "forward",
      providerConfigKey: j.providerConfigKey,
      connectionId: j.connectionId,
      payload: { ...j.headers },
    };
    const started = await runner.start({
      version,
      connectionId: j.connectionId,
      trigger: "webhook",
      entry: "onWebhook",
      input,
      attempt,
    });
    return (await started.finished).transient ? "retry" : "done";
  };

  const connectionExists = async (providerConfigKey: string, connectionId: string) => {
    try {
      await ctx.clients().connection.getConnection({ providerConfigKey, connectionId });
      return true;
    } catch (err) {
      const code = fromConnectError(err).code;
      if (code === "unknown_connection" || code === "unknown_provider_config") return false;
      throw err;
    }
  };

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
      let outcome: Outcome;
      try {
        outcome = await handle(job, msg);
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
      if (outcome === "again" || (outcome === "retry" && attempt < ctx.config.maxAttempts)) {
        log.warn(
          outcome === "again"
            ? "action run failed; it will be tried again"
            : "script run failed on an unavailable service; it will be tried again",
          {
            kind: msg.job.case,
            attempt,
            retryInMs: backoff(attempt),
          },
        );
        await job.nak(backoff(attempt));
        return;
      }
      if (outcome === "retry") log.error("script run given up after its last attempt", { kind: msg.job.case, attempt });
      await job.ack();
    },
    {
      concurrency: ctx.config.jobConcurrency,
      // A job is acked after its run: the wait must outlast the longest run, its wait for a
      // sandbox process included.
      ackWaitMs: ctx.config.queueTimeoutMs + ctx.limits.timeoutMs * 2 + 30_000,
    },
  );
}
