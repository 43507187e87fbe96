import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import type { DeleteConnectionRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import { ConnectionDeletingSchema } from "@junction/contracts/events/v1/events_pb";
import { LifecycleEvent, RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { subjects } from "@junction/bus";
import type { ConnectionServiceContext } from "../../context.ts";
import type { ConnectionRecord, EnvironmentRecord } from "../../store/records.ts";
import { lookupConnection } from "./connection-lookup.ts";

/**
 * DeleteConnection (spec: Events 3, lifecycle): the pre-deletion scripts, the `connection deleting` event, the
 * channels stopped, then the record (and its credentials) go.
 */
export async function deleteConnection(ctx: ConnectionServiceContext, req: DeleteConnectionRequest) {
  const { env, rec } = await lookupConnection(ctx, req.providerConfigKey, req.connectionId);
  await runPreDeletionScripts(ctx, rec.providerConfigKey, rec.connectionId);
  // spec: Events 3, pre-connection-deletion: announced before the record goes.
  await announceDeleting(ctx, env, rec);
  // Keep this the last step before the record goes, after the pre-deletion scripts (which stop the
  // channels they know of): no channel may outlive its connection (spec: lifecycle, "A channel
  // that is not stopped when its connection is deleted may continue to send notifications").
  await ctx
    .stopChannels?.({
      environmentId: env.id,
      providerConfigKey: rec.providerConfigKey,
      connectionId: rec.connectionId,
    })
    .catch((err: unknown) =>
      ctx.logger.warn("channels of a deleted connection not stopped", {
        integration: rec.providerConfigKey,
        connectionId: rec.connectionId,
        error: err,
      }),
    );
  await ctx.store.deleteConnection(env.id, rec.providerConfigKey, rec.connectionId);
  ctx.logger.info("connection deleted", { integration: rec.providerConfigKey, connectionId: rec.connectionId });
  return {};
}

async function announceDeleting(ctx: ConnectionServiceContext, env: EnvironmentRecord, rec: ConnectionRecord) {
  const event = create(ConnectionDeletingSchema, {
    environmentId: env.id,
    providerConfigKey: rec.providerConfigKey,
    connectionId: rec.connectionId,
    provider: rec.provider,
    metadata: rec.metadata as JsonObject,
    atMs: BigInt(ctx.clock.now()),
  });
  await ctx.bus.publish(subjects.connectionDeleting(rec.providerConfigKey), toBinary(ConnectionDeletingSchema, event));
}

/**
 * spec: Events 3 and Errors 2: the pre-connection-deletion scripts run before the record goes, with
 * a deadline; whatever goes wrong (a script error, the deadline, the scripts service down) is logged
 * at error level and never blocks the deletion.
 */
async function runPreDeletionScripts(
  ctx: ConnectionServiceContext,
  providerConfigKey: string,
  connectionId: string,
): Promise<void> {
  if (!ctx.scripts) return;
  const fields = { integration: providerConfigKey, connectionId };
  try {
    const { runs } = await ctx.scripts.runLifecycleEvent(
      { event: LifecycleEvent.PRE_CONNECTION_DELETION, providerConfigKey, connectionId },
      { timeoutMs: ctx.scriptsDeadlineMs ?? 30_000 },
    );
    const failed = runs.filter((r) => r.status !== RunStatus.SUCCEEDED);
    if (failed.length > 0) {
      ctx.logger.error("pre-connection-deletion script failed; deleting the connection anyway", {
        ...fields,
        runs: failed.map((r) => ({ runId: r.id, script: r.scriptName, status: RunStatus[r.status] })),
      });
    }
  } catch (err) {
    ctx.logger.error("pre-connection-deletion scripts did not run; deleting the connection anyway", {
      ...fields,
      error: err,
    });
  }
}
