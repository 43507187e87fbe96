import { create, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { newId } from "@junction/platform";
import type { Checkpoint, WriteCounts } from "../../records/record-store.ts";
import type { RunError } from "../../runtime/run-types.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";

/** How a sync run ended, for its webhooks. */
export interface SyncRunOutcome {
  run: ScriptRunRecord;
  variant: string;
  /** INITIAL for a first or full run (no lastSyncDate), WEBHOOK for an onWebhook run, else INCREMENTAL. */
  syncType: "INITIAL" | "INCREMENTAL" | "WEBHOOK";
  /** What each model's records did in the run (the declared models too, with zeros). */
  changes: Map<string, WriteCounts>;
  checkpoints: { from: Checkpoint | null; to: Checkpoint | null } | null;
  success: boolean;
  error: RunError | null;
  endedAt: number;
}

/**
 * Nango's `sync` webhook bodies of a run, one per model (packages/webhooks/lib/sync.ts): on success
 * only for models that changed (every model with `always`), with `responseResults` and
 * `modifiedAfter` (the run's start: read on with listRecords({modifiedAfter})); on failure, one per
 * model with the error, `startedAt` and `failedAt`.
 */
export function syncWebhookBodies(outcome: SyncRunOutcome, always: boolean): Record<string, unknown>[] {
  const { run } = outcome;
  const bodies: Record<string, unknown>[] = [];
  for (const [model, c] of outcome.changes) {
    const base = {
      from: "junction",
      type: "sync",
      connectionId: run.connectionId,
      providerConfigKey: run.providerConfigKey,
      syncName: run.scriptName,
      syncVariant: outcome.variant,
      model,
      syncType: outcome.syncType,
      ...(outcome.checkpoints ? { checkpoints: outcome.checkpoints } : {}),
    };
    if (!outcome.success) {
      bodies.push({
        ...base,
        success: false,
        error: { type: outcome.error?.name ?? "script_error", description: outcome.error?.message ?? "the run failed" },
        startedAt: new Date(run.startedAt).toISOString(),
        failedAt: new Date(outcome.endedAt).toISOString(),
      });
      continue;
    }
    if (!always && c.added + c.updated + c.deleted === 0) continue;
    const modifiedAfter = new Date(run.startedAt).toISOString();
    bodies.push({
      ...base,
      success: true,
      responseResults: { added: c.added, updated: c.updated, deleted: c.deleted },
      modifiedAfter,
      queryTimeStamp: modifiedAfter,
    });
  }
  return bodies;
}

/** Enqueues a run's sync webhooks on the delivery queue (signed and delivered by the webhook service). */
export async function enqueueSyncWebhooks(ctx: ScriptsServiceContext, outcome: SyncRunOutcome): Promise<number> {
  const bodies = syncWebhookBodies(outcome, ctx.config.syncWebhookAlways);
  const { run } = outcome;
  for (const body of bodies) {
    const now = ctx.clock.now();
    const request = create(DeliveryRequestedSchema, {
      messageId: newId("msg", now),
      environmentId: run.environmentId,
      type: "sync",
      body: new TextEncoder().encode(JSON.stringify(body)),
      providerConfigKey: run.providerConfigKey,
      connectionId: run.connectionId ?? "",
      atMs: BigInt(now),
    });
    // De-duplicated per run and model: a run recorded twice sends one webhook per model.
    await ctx.bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, request), {
      msgId: `sync:${run.id}:${body.model as string}`,
    });
  }
  if (bodies.length) ctx.logger.info("sync webhooks enqueued", { runId: run.id, count: bodies.length });
  return bodies.length;
}
