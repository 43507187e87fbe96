import type { ConnectionCreated } from "@junction/contracts/events/v1/events_pb";
import type { LifecycleEvent, ScriptDeclaration } from "../../declaration/script-declaration.ts";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { EVENTS } from "../mappers.ts";
import { scheduleSyncs } from "../scheduler/schedule-syncs.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import type { FinishedRun, ScriptRunner } from "../script-runner.ts";
import { childMsgId, enqueueScriptJob } from "./script-jobs.ts";

const handles = (d: ScriptDeclaration, event: LifecycleEvent) => d.kind === "on-event" && d.event === event;

/** The lifecycle scripts of an integration that hook `event`, latest versions. */
export async function lifecycleScripts(
  ctx: ScriptsServiceContext,
  environmentId: string,
  providerConfigKey: string,
  event: LifecycleEvent,
): Promise<ScriptVersionRecord[]> {
  const latest = await ctx.scripts.listLatest(environmentId, providerConfigKey);
  return latest.filter((v) => handles(v.declaration, event));
}

/**
 * A new connection (spec: Events 3): its syncs get their schedules, and each post-connection-creation
 * script gets a job of its own on the durable queue, so that each is retried on its own.
 */
export async function onConnectionCreated(
  ctx: ScriptsServiceContext,
  scheduler: SyncScheduler,
  event: ConnectionCreated,
  msgId: string,
): Promise<void> {
  // A new connection has no records: any found are a deleted one's of the same id, left when the
  // scripts service could not be told of the deletion. Removed before its syncs are scheduled.
  await forgetRecords(ctx, event.environmentId, event.providerConfigKey, event.connectionId);
  const latest = await ctx.scripts.listLatest(event.environmentId, event.providerConfigKey);
  const syncs = latest.filter((v) => v.declaration.kind === "sync");
  if ((await scheduleSyncs(ctx, syncs, [event.connectionId], Number(event.atMs))) > 0) scheduler.poke();
  for (const script of latest.filter((v) => handles(v.declaration, "post-connection-creation"))) {
    await enqueueScriptJob(
      ctx.bus,
      {
        job: {
          case: "lifecycleRun",
          value: {
            environmentId: event.environmentId,
            event: EVENTS["post-connection-creation"],
            providerConfigKey: event.providerConfigKey,
            connectionId: event.connectionId,
            scriptName: script.name,
          },
        },
      },
      childMsgId("lifecycle-run", msgId, script.name),
    );
  }
}

/**
 * Runs every script of `event` for a connection, one after the other, and answers when all have
 * finished (RunLifecycleEvent: pre-connection-deletion runs before the deletion). A script that
 * fails does not stop the next.
 */
export async function runLifecycleEvent(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  environmentId: string,
  providerConfigKey: string,
  connectionId: string,
  event: LifecycleEvent,
): Promise<FinishedRun[]> {
  const finished: FinishedRun[] = [];
  for (const version of await lifecycleScripts(ctx, environmentId, providerConfigKey, event)) {
    const started = await runner.start({ version, connectionId, trigger: "event", entry: "exec" });
    finished.push(await started.finished);
  }
  return finished;
}

/**
 * A connection about to be deleted (after its pre-connection-deletion scripts, which may still read
 * them): its records of every model and variant and its checkpoints are removed, and its change feeds
 * end. The connection service asks for this in both topologies before the connection goes.
 */
export async function forgetRecords(
  ctx: ScriptsServiceContext,
  environmentId: string,
  providerConfigKey: string,
  connectionId: string,
): Promise<void> {
  const removed = await ctx.records.forgetConnection({ environmentId, providerConfigKey, connectionId });
  if (removed > 0) {
    ctx.logger.info("records of a deleted connection removed", {
      integration: providerConfigKey,
      connectionId,
      removed,
    });
  }
}
