import { SyncMode } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { invalidArgument } from "@junction/platform";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import type { Route } from "../../router.ts";
import { syncNames, syncsField } from "./sync-names.ts";

/** The headers the route falls back on (read by hand below; for the document). */
const fallbackHeaders = z.object({
  "provider-config-key": z.string().optional().describe("The integration's id, when not in the body."),
  "connection-id": z.string().optional().describe("The connection's id, when not in the body."),
});
const triggerAnswer = z.object({
  success: z.literal(true),
  runs: z.array(
    z.object({ id: z.string(), sync: z.string(), connection_id: z.string(), status: z.literal("running") }),
  ),
  queued: z.array(z.object({ sync: z.string(), connection_id: z.string() })),
});

/**
 * Nango's body (strict): `syncs` as names or `{name, variant}`; `opts` (`reset`: a full refresh;
 * `emptyCache`: the records of the sync's models removed first), or the older `sync_mode` / `full_resync`. Only the
 * base variant exists in Junction.
 */
const triggerBody = z
  .object({
    syncs: syncsField,
    opts: z.object({ reset: z.boolean().optional(), emptyCache: z.boolean().optional() }).strict().optional(),
    sync_mode: z.enum(["incremental", "full_refresh", "full_refresh_and_clear_cache"]).optional(),
    full_resync: z.boolean().optional(),
    connection_id: z.string().min(1).max(255).optional(),
    provider_config_key: z.string().min(1).max(255).optional(),
  })
  .strict();

/**
 * POST /sync/trigger (spec: Endpoints): runs syncs of a connection now, or of every connection of the
 * integration when none is named. The connection and integration come from the body, else from the
 * `Connection-Id` / `Provider-Config-Key` headers (the body wins), as in Nango. Answers Nango's `{"success": true}` with the runs started (`running`;
 * follow them with GET /scripts/runs/{id}) and the syncs found running, for which one follow-up run
 * is queued (`queued`).
 */
export function syncTriggerRoute(): Route {
  return {
    method: "POST",
    pattern: "/sync/trigger",
    handler: async ({ req, clients }) => {
      const body = parseWith(triggerBody, await readJson(req, 64 * 1024), "invalid_body", "body");
      const providerConfigKey = body.provider_config_key ?? req.headers.get("provider-config-key")?.trim();
      if (!providerConfigKey) {
        throw invalidArgument(
          "missing_provider_config_key",
          "Missing provider_config_key. Provide it in the body or headers.",
        );
      }
      // None: every connection of the integration, as in Nango.
      const connectionId = body.connection_id ?? req.headers.get("connection-id")?.trim() ?? "";
      if (body.opts && (body.sync_mode !== undefined || body.full_resync !== undefined)) {
        throw invalidArgument(
          "invalid_body",
          "Cannot use opts with the deprecated sync_mode / full_resync parameters.",
        );
      }
      const full =
        body.opts?.reset === true ||
        body.full_resync === true ||
        (body.sync_mode !== undefined && body.sync_mode !== "incremental");
      const res = await clients.scripts.triggerSyncs({
        providerConfigKey,
        connectionId,
        syncs: syncNames(body.syncs),
        syncMode: full ? SyncMode.FULL_REFRESH : SyncMode.INCREMENTAL,
        emptyCache: body.opts?.emptyCache === true || body.sync_mode === "full_refresh_and_clear_cache",
      });
      return json({
        success: true,
        runs: res.runs.map((r) => ({ id: r.id, sync: r.scriptName, connection_id: r.connectionId, status: "running" })),
        queued: res.queued.map((q) => ({ sync: q.name, connection_id: q.connectionId })),
      });
    },
    doc: {
      summary: "Trigger syncs of a connection",
      description: "Runs them now; follow each run with GET /scripts/runs/{id}.",
      tags: ["Syncs"],
      headers: fallbackHeaders,
      body: triggerBody,
      responses: { 200: triggerAnswer },
      errors: [
        "missing_provider_config_key",
        "missing_connection_id",
        "unknown_provider_config",
        "unknown_connection",
        "unknown_sync",
        "script_runtime_busy",
      ],
    },
  };
}
