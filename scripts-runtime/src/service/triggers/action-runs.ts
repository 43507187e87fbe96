import { create, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import type { ActionRunJob } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { newId } from "@junction/platform";
import type { JsonValue, RunError } from "../../runtime/run-types.ts";
import type { RunFinish, ScriptRunRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import type { RunPlan, ScriptRunner } from "../script-runner.ts";
import { enqueueScriptJob } from "./script-jobs.ts";

/** The most X-Max-Retries allows (Nango's bound). */
export const MAX_ACTION_RETRIES = 5;

/** What the worker does with the job next: ack it, or deliver it again after the queue's backoff. */
export type ActionJobOutcome = "done" | "again";

/**
 * Accepts an async action (POST /action/trigger with X-Async): records its run as `running` (its id
 * is the action's id) and enqueues it on the durable queue, where any scripts instance takes it.
 */
export async function enqueueActionRun(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  plan: RunPlan,
  maxRetries: number,
): Promise<ScriptRunRecord> {
  const { version, connectionId, input } = plan;
  // The caller is recorded with the run, which each attempt reads: the job need not carry it.
  const record = await runner.record(plan);
  const queued = enqueueScriptJob(
    ctx.bus,
    {
      job: {
        case: "actionRun",
        value: {
          environmentId: version.environmentId,
          runId: record.id,
          providerConfigKey: version.providerConfigKey,
          connectionId,
          scriptName: version.name,
          scriptVersion: version.version,
          ...(input === undefined ? {} : { input: fromJson(ValueSchema, input) }),
          maxRetries: Math.max(0, Math.min(MAX_ACTION_RETRIES, maxRetries)),
        },
      },
    },
    `action-run:${record.id}`,
  );
  // Not queued: the run must not stay `running` forever; the caller gets the bus's error.
  await queued.catch(async (err: unknown) => {
    const error = { name: "ActionNotQueued", message: "the run could not be queued" };
    await ctx.runs.finish(record.environmentId, record.id, failedNow(ctx.clock.now(), error, 1));
    throw err;
  });
  return record;
}

/**
 * One delivery of an async action's job (`attempt` counts deliveries, from 1). The run is tried
 * under its recorded id; a failure with retries left leaves it `running` and the job is delivered
 * again. A delivery that finds the run ended (its worker died before the ack) only makes sure the
 * webhook went out. A run interrupted more often than it may be tried ends as failed.
 */
export async function runActionJob(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  job: ActionRunJob,
  attempt: number,
): Promise<ActionJobOutcome> {
  const run = await ctx.runs.get(job.environmentId, job.runId);
  if (!run) {
    ctx.logger.warn("async action run unknown; job dropped", { runId: job.runId });
    return "done";
  }
  if (run.status !== "running") {
    await enqueueAsyncActionWebhook(ctx, run);
    return "done";
  }
  const version = await ctx.scripts.getVersion(
    job.environmentId,
    job.providerConfigKey,
    job.scriptName,
    job.scriptVersion,
  );
  if (!version) {
    return endUnrun(ctx, run, attempt, { name: "ActionRemoved", message: "the action was removed before it ran" });
  }
  if (attempt > Math.max(job.maxRetries + 1, ctx.config.maxAttempts)) {
    const message = `the run was interrupted ${attempt - 1} times (its process stopped)`;
    return endUnrun(ctx, run, attempt - 1, { name: "ActionInterrupted", message });
  }
  // A delivery after the first takes the run over: an earlier attempt still running elsewhere (a process
  // that hung past the ack wait) can no longer end it.
  if (attempt > 1) await ctx.runs.claimAttempt(run.environmentId, run.id, attempt);
  const input = job.input === undefined ? undefined : (toJson(ValueSchema, job.input) as JsonValue);
  const started = runner.resume(run, {
    version,
    connectionId: job.connectionId,
    trigger: "action",
    entry: "exec",
    attempt,
    retryFailure: attempt <= job.maxRetries,
    ...(input === undefined ? {} : { input }),
  });
  const { record } = await started.finished;
  const cancelled = record.error?.name === "CancelledError";
  if (record.status !== "succeeded" && attempt <= job.maxRetries && !cancelled) return "again";
  const ended = (await ctx.runs.get(job.environmentId, job.runId)) ?? record;
  await enqueueAsyncActionWebhook(ctx, ended);
  return "done";
}

/** Ends a run that could not be tried (its action is gone, or it was interrupted too often). */
async function endUnrun(
  ctx: ScriptsServiceContext,
  run: ScriptRunRecord,
  attempt: number,
  error: RunError,
): Promise<ActionJobOutcome> {
  const ended = await ctx.runs.finish(run.environmentId, run.id, failedNow(ctx.clock.now(), error, attempt));
  await enqueueAsyncActionWebhook(ctx, ended ?? run);
  return "done";
}

function failedNow(now: number, error: RunError, attempt: number): RunFinish {
  return {
    status: "failed",
    finishedAt: now,
    durationMs: 0,
    logs: [],
    logsTruncated: false,
    error,
    attempt: Math.max(1, attempt),
  };
}

/**
 * Nango's `async_action` webhook (packages/types/lib/webhooks/api.ts, NangoAsyncActionWebhookBody),
 * sent when an async action has ended, succeeded or failed after its last try: the result is then at
 * `payload.statusUrl`.
 */
export function asyncActionWebhookBody(run: ScriptRunRecord): Record<string, unknown> {
  return {
    from: "junction",
    type: "async_action",
    connectionId: run.connectionId,
    providerConfigKey: run.providerConfigKey,
    payload: { id: run.id, statusUrl: `/action/${run.id}` },
  };
}

/**
 * Enqueues the webhook on the delivery queue; the webhook service signs and delivers it. The bus
 * de-duplicates by run: a job delivered again after its run ended does not send a second one.
 */
export async function enqueueAsyncActionWebhook(ctx: ScriptsServiceContext, run: ScriptRunRecord): Promise<void> {
  const now = ctx.clock.now();
  const messageId = newId("msg", now);
  const request = create(DeliveryRequestedSchema, {
    messageId,
    environmentId: run.environmentId,
    type: "async_action",
    body: new TextEncoder().encode(JSON.stringify(asyncActionWebhookBody(run))),
    providerConfigKey: run.providerConfigKey,
    connectionId: run.connectionId ?? "",
    atMs: BigInt(now),
  });
  await ctx.bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, request), {
    msgId: `async-action:${run.id}`,
  });
  ctx.logger.info("async action webhook enqueued", { messageId, runId: run.id, status: run.status });
}
