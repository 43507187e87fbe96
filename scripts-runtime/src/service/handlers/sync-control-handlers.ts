import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../context.ts";
import type { SyncRuns } from "../scheduler/sync-runs.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import { setSyncFrequency } from "./sync/set-sync-frequency.ts";
import { statusOf } from "./sync/sync-status.ts";
import { syncTargets } from "./sync/sync-targets.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "getSyncStatus" | "setSyncsPaused" | "setSyncFrequency">;

/** GetSyncStatus, SetSyncsPaused, SetSyncFrequency: Nango's sync status and control. */
export function syncControlHandlers(ctx: ScriptsServiceContext, syncs: SyncRuns, scheduler: SyncScheduler): Handlers {
  return {
    async getSyncStatus(req) {
      const { keys } = await syncTargets(ctx, req);
      const statuses = [];
      for (const { key, version } of keys) statuses.push(await statusOf(ctx, syncs, key, version));
      return { syncs: statuses };
    },

    async setSyncsPaused(req) {
      const { key, keys } = await syncTargets(ctx, req);
      const changed = await ctx.store.setPaused(
        keys.map((k) => k.key),
        req.paused,
        ctx.clock.now(),
      );
      if (!req.paused && changed > 0) scheduler.poke();
      ctx.logger.info(req.paused ? "syncs paused" : "syncs started", {
        integration: key,
        connectionId: req.connectionId || null,
        syncs: [...new Set(keys.map((k) => k.version.name))],
        changed,
      });
      return { changed };
    },

    setSyncFrequency: (req) => setSyncFrequency(ctx, scheduler, req),
  };
}
