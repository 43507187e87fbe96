import type { Job } from "@junction/bus";
import type { LifecycleRunJob, ScriptJob, WebhookRunJob } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError, type Logger } from "@junction/platform";
import type { ScriptsServiceContext } from "../context.ts";
import { EVENTS, nameOf } from "../mappers.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { runActionJob } from "./action-runs.ts";
import { onConnectionCreated } from "./lifecycle-runs.ts";
import { derivedCreatedMsgId } from "./script-jobs.ts";

/** "again": the run asks for another delivery whatever maxAttempts says (an async action's retries). */
export type ScriptJobOutcome = "done" | "retry" | "again";

/** What one decoded `scripts.runs` job needs to run. */
export interface ScriptJobRunDeps {
  ctx: ScriptsServiceContext;
  runner: ScriptRunner;
  scheduler: SyncScheduler;
  log: Logger;
}

/** Runs one decoded job by its kind; throws when a store or service failed around the run. */
export async function runScriptJob(deps: ScriptJobRunDeps, job: Job, msg: ScriptJob): Promise<ScriptJobOutcome> {
  switch (msg.job.case) {
    case "connectionCreated": {
      const event = msg.job.value;
      await onConnectionCreated(deps.ctx, deps.scheduler, event, job.msgId ?? derivedCreatedMsgId(event));
      return "done";
    }
    case "lifecycleRun":
      return runLifecycle(deps, msg.job.value, job.deliveryCount);
    case "webhookRun":
      return runWebhook(deps, msg.job.value, job.deliveryCount);
    case "actionRun":
      return runActionJob(deps.ctx, deps.runner, msg.job.value, job.deliveryCount);
    default:
      deps.log.error("script job of an unknown kind dropped");
      return "done";
  }
}

async function runLifecycle(
  { ctx, runner, log }: ScriptJobRunDeps,
  j: LifecycleRunJob,
  attempt: number,
): Promise<ScriptJobOutcome> {
  const event = nameOf(EVENTS, j.event);
  const version = await ctx.scripts.getLatest(j.environmentId, j.providerConfigKey, j.scriptName);
  if (!event || !version || version.declaration.kind !== "on-event" || version.declaration.event !== event) {
    log.info("lifecycle script no longer deployed; run dropped", {
      script: j.scriptName,
      connectionId: j.connectionId,
    });
    return "done";
  }
  if (!(await connectionExists(ctx, j.providerConfigKey, j.connectionId))) {
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
}

async function runWebhook(
  { ctx, runner, log }: ScriptJobRunDeps,
  j: WebhookRunJob,
  attempt: number,
): Promise<ScriptJobOutcome> {
  const version = await ctx.scripts.getLatest(j.environmentId, j.providerConfigKey, j.scriptName);
  if (version?.declaration.kind !== "sync" || !version.declaration.hasOnWebhook) {
    log.info("webhook subscription no longer deployed; run dropped", { script: j.scriptName });
    return "done";
  }
  if (!(await connectionExists(ctx, j.providerConfigKey, j.connectionId))) {
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
}

async function connectionExists(ctx: ScriptsServiceContext, providerConfigKey: string, connectionId: string) {
  try {
    await ctx.clients().connection.getConnection({ providerConfigKey, connectionId });
    return true;
  } catch (err) {
    const code = fromConnectError(err).code;
    if (code === "unknown_connection" || code === "unknown_provider_config") return false;
    throw err;
  }
}
