import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";

/** Connections read per page when a new sync is scheduled for every connection of its integration. */
const CONNECTION_PAGE = 1000;

/**
 * Creates the schedules of syncs for connections that have none: first due one period after `from`
 * (a new connection, a newly deployed sync), so that a sync does not race the post-connection-creation
 * script of the same new connection; /sync/trigger runs one at once. A sync with `autoStart: false`
 * gets no schedule: it runs only when triggered. Existing schedules keep their times.
 */
export async function scheduleSyncs(
  ctx: ScriptsServiceContext,
  syncs: ScriptVersionRecord[],
  connectionIds: string[],
  from: number,
): Promise<number> {
  const entries = syncs.flatMap((v) =>
    v.declaration.kind === "sync" && v.declaration.autoStart
      ? connectionIds.map((connectionId) => ({
          environmentId: v.environmentId,
          providerConfigKey: v.providerConfigKey,
          scriptName: v.name,
          connectionId,
          nextDueAt: from + (v.declaration.kind === "sync" ? v.declaration.frequencyMs : 0),
        }))
      : [],
  );
  return ctx.store.ensureSchedules(entries);
}

/** Schedules a sync for every connection its integration has, a page at a time. */
export async function scheduleForAllConnections(
  ctx: ScriptsServiceContext,
  sync: ScriptVersionRecord,
): Promise<number> {
  if (sync.declaration.kind !== "sync" || !sync.declaration.autoStart) return 0;
  const from = ctx.clock.now();
  let added = 0;
  for (let page = 0; ; page++) {
    const { connections } = await ctx.clients().connection.listConnections({
      providerConfigKey: sync.providerConfigKey,
      limit: CONNECTION_PAGE,
      page,
    });
    added += await scheduleSyncs(
      ctx,
      [sync],
      connections.map((c) => c.connectionId),
      from,
    );
    if (connections.length < CONNECTION_PAGE) return added;
  }
}
