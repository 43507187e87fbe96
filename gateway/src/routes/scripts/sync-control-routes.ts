import { SyncState } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { z } from "zod";
import { iso, json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import type { Route } from "../../router.ts";
import { syncNames, syncsField } from "./sync-names.ts";

const key = z.string().min(1).max(255);
/** Nango's body of /sync/pause and /sync/start (strict). */
const controlBody = z
  .object({ syncs: syncsField.max(256), provider_config_key: key, connection_id: key.optional() })
  .strict();
const statusQuery = z
  .object({ provider_config_key: key, syncs: z.string().min(1), connection_id: key.optional() })
  .strict();
const frequencyBody = z
  .object({
    sync_name: z.string().min(1).max(64),
    sync_variant: z.literal("base").optional(),
    provider_config_key: key,
    connection_id: key,
    frequency: z.string().max(255).nullable(),
  })
  .strict();

const STATES: Record<SyncState, string> = {
  [SyncState.UNSPECIFIED]: "SUCCESS",
  [SyncState.RUNNING]: "RUNNING",
  [SyncState.SUCCESS]: "SUCCESS",
  [SyncState.ERROR]: "ERROR",
  [SyncState.PAUSED]: "PAUSED",
};

/**
 * GET /sync/status, POST /sync/pause and /sync/start, PUT /sync/update-connection-frequency, in
 * Nango's shapes (issue 20, item 6). Junction keeps no records, models or checkpoints: `recordCount`
 * is `{}`, `checkpoint` null, and `type` and `latestResult` are left out.
 */
export function syncControlRoutes(): Route[] {
  const pauseOrStart = (path: string, paused: boolean): Route => ({
    method: "POST",
    pattern: path,
    handler: async ({ req, clients }) => {
      const body = parseWith(controlBody, await readJson(req, 64 * 1024), "invalid_body");
      await clients.scripts.setSyncsPaused({
        providerConfigKey: body.provider_config_key,
        syncs: syncNames(body.syncs),
        connectionId: body.connection_id ?? "",
        paused,
      });
      return json({ success: true });
    },
  });
  return [
    {
      method: "GET",
      pattern: "/sync/status",
      handler: async ({ url, clients }) => {
        const q = parseWith(statusQuery, queryObject(url), "invalid_query_params");
        const names = q.syncs.trim() === "*" ? [] : q.syncs.split(",").map((s) => s.trim().replace(/::base$/, ""));
        const res = await clients.scripts.getSyncStatus({
          providerConfigKey: q.provider_config_key,
          syncs: names,
          connectionId: q.connection_id ?? "",
        });
        return json({
          syncs: res.syncs.map((s) => ({
            id: s.id,
            connection_id: s.connectionId,
            name: s.name,
            variant: "base",
            status: STATES[s.state],
            ...(s.finishedAtMs > 0n ? { finishedAt: iso(s.finishedAtMs) } : {}),
            nextScheduledSyncAt: iso(s.nextScheduledAtMs),
            frequency: s.frequency,
            recordCount: {},
            checkpoint: null,
            latest_run_id: s.latestRunId || null,
          })),
        });
      },
    },
    pauseOrStart("/sync/pause", true),
    pauseOrStart("/sync/start", false),
    {
      method: "PUT",
      pattern: "/sync/update-connection-frequency",
      handler: async ({ req, clients }) => {
        const body = parseWith(frequencyBody, await readJson(req, 64 * 1024), "invalid_body");
        const res = await clients.scripts.setSyncFrequency({
          providerConfigKey: body.provider_config_key,
          connectionId: body.connection_id,
          syncName: body.sync_name,
          ...(body.frequency === null ? {} : { frequency: body.frequency }),
        });
        return json({ frequency: res.frequency });
      },
    },
  ];
}
