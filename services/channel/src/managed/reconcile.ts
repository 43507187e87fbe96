import type { Client } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { Clock } from "@junction/platform";
import type { ChannelStore } from "../store/store.ts";

/** Connections listed per call. */
const PAGE = 1000;
/** The reason of a slot whose run found its integration no longer managed. */
export const NOT_MANAGED_REASON = "not_managed";

export interface ReconcileDeps {
  store: ChannelStore;
  clock: Clock;
  connections: Client<typeof ConnectionService>;
}

/**
 * Schedules a slot for every connection of a managed integration that has none, or whose slot was
 * left when managed channels were off: connection events are at most once (a process down when one
 * was published never sees it), and connections made before the switch was turned on have none.
 * Returns how many were scheduled.
 */
export async function reconcileManaged(deps: ReconcileDeps, environmentId: string): Promise<number> {
  const { integrations } = await deps.connections.listIntegrations({});
  let scheduled = 0;
  for (const integration of integrations) {
    if (!integration.managedChannels) continue;
    for (let page = 0; ; page++) {
      const { connections } = await deps.connections.listConnections({
        providerConfigKey: integration.uniqueKey,
        limit: PAGE,
        page,
      });
      for (const c of connections) {
        const key = { environmentId, providerConfigKey: integration.uniqueKey, connectionId: c.connectionId };
        const slot = await deps.store.managed.getManaged(key);
        if (slot && !(slot.dueAt === null && slot.reason === NOT_MANAGED_REASON)) continue;
        const now = deps.clock.now();
        await deps.store.managed.scheduleManaged(key, "connection_found", now, now);
        scheduled++;
      }
      if (connections.length < PAGE) break;
    }
  }
  return scheduled;
}
