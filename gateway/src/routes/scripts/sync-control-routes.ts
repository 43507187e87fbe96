import { SyncState } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { z } from "zod";
import { iso, json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import type { ErrorCode } from "../../openapi/error-codes.ts";
import { isoOrNull, type RouteDoc, successAnswer } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { enumOf, nameOf, RUN_STATUSES } from "./present-scripts.ts";
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

const statusAnswer = z.object({
  syncs: z.array(
    z.object({
      id: z.string(),
      connection_id: z.string(),
      name: z.string(),
      variant: z.literal("base"),
      status: z.enum(["RUNNING", "SUCCESS", "ERROR", "PAUSED"]),
      finishedAt: isoOrNull.optional().describe("When its latest run ended; absent while none has, or one runs."),
      nextScheduledSyncAt: isoOrNull,
      frequency: z.string(),
      recordCount: z
        .record(z.string(), z.number())
        .describe("Records kept per model of the sync (deleted ones included)."),
      checkpoint: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
        .nullable()
        .describe("The sync's checkpoint for the connection (nango.saveCheckpoint), null when none."),
      latest_run_id: z.string().nullable().describe("Its latest run (GET /scripts/runs/{id})."),
      latest_run_status: enumOf(RUN_STATUSES).describe(
        "How its latest run ended (`running` while it runs; `timed_out`, `crashed`, `interrupted`: stopped before it ended, the next run resumes from the checkpoint); null when none ran.",
      ),
    }),
  ),
});
/** What the syncs named, the integration and the connection (when named) answer when they are not found. */
const lookupErrors: ErrorCode[] = ["unknown_provider_config", "unknown_sync", "unknown_connection"];

const STATES: Record<SyncState, string> = {
  [SyncState.UNSPECIFIED]: "SUCCESS",
  [SyncState.RUNNING]: "RUNNING",
  [SyncState.SUCCESS]: "SUCCESS",
  [SyncState.ERROR]: "ERROR",
  [SyncState.PAUSED]: "PAUSED",
};

/**
 * GET /sync/status, POST /sync/pause and /sync/start, PUT /sync/update-connection-frequency, in
 * Nango's shapes: `recordCount` per model and `checkpoint` from the records store;
 * `type` and `latestResult` are left out.
 */
export function syncControlRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/sync/status", handler: syncStatus, doc: statusDoc },
    pauseOrStartRoute("/sync/pause", true),
    pauseOrStartRoute("/sync/start", false),
    { method: "PUT", pattern: "/sync/update-connection-frequency", handler: setFrequency, doc: frequencyDoc },
  ];
}

async function syncStatus({ url, clients }: RouteContext): Promise<Response> {
  const q = parseWith(statusQuery, queryObject(url), "invalid_query_params", "query");
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
      recordCount: Object.fromEntries(Object.entries(s.recordCount).map(([m, n]) => [m, Number(n)])),
      checkpoint: (s.checkpoint as Record<string, string | number | boolean> | undefined) ?? null,
      latest_run_id: s.latestRunId || null,
      latest_run_status: nameOf(RUN_STATUSES, s.latestRunStatus),
    })),
  });
}

const statusDoc: RouteDoc = {
  summary: "Get the status of syncs",
  description:
    "Per sync and connection (`syncs`: names separated by commas, or `*` for every one). " +
    "`recordCount` counts the records of each of its models, `checkpoint` is what the sync saved last.",
  tags: ["Syncs"],
  query: statusQuery,
  responses: { 200: statusAnswer },
  errors: lookupErrors,
};

/** POST /sync/pause (`paused`) or /sync/start: for the connection named, or every connection. */
function pauseOrStartRoute(path: string, paused: boolean): Route {
  return {
    method: "POST",
    pattern: path,
    handler: async ({ req, clients }) => {
      const body = parseWith(controlBody, await readJson(req, 64 * 1024), "invalid_body", "body");
      await clients.scripts.setSyncsPaused({
        providerConfigKey: body.provider_config_key,
        syncs: syncNames(body.syncs),
        connectionId: body.connection_id ?? "",
        paused,
      });
      return json({ success: true });
    },
    doc: {
      summary: paused ? "Pause syncs" : "Start syncs",
      description: paused
        ? "Stops scheduling the syncs, for the connection or every connection of the integration; a run under way ends."
        : "Schedules the syncs again (a paused or never-started sync), for the connection or every connection.",
      tags: ["Syncs"],
      body: controlBody,
      responses: { 200: successAnswer },
      errors: lookupErrors,
    },
  };
}

async function setFrequency({ req, clients }: RouteContext): Promise<Response> {
  const body = parseWith(frequencyBody, await readJson(req, 64 * 1024), "invalid_body", "body");
  const res = await clients.scripts.setSyncFrequency({
    providerConfigKey: body.provider_config_key,
    connectionId: body.connection_id,
    syncName: body.sync_name,
    ...(body.frequency === null ? {} : { frequency: body.frequency }),
  });
  return json({ frequency: res.frequency });
}

const frequencyDoc: RouteDoc = {
  summary: "Set a sync's frequency for a connection",
  description: "`null` goes back to the script's own. Answers the interval read, as Nango does.",
  tags: ["Syncs"],
  body: frequencyBody,
  responses: { 200: z.object({ frequency: z.string() }) },
  errors: ["invalid_frequency", ...lookupErrors],
};
