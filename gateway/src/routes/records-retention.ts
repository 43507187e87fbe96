import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, readJson } from "../http/read-json.ts";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";

const days = z.number().int().min(0).max(3650);
/** PUT /integrations/{key}/records-retention (strict); a term left out is 0 (kept). */
const retentionBody = z
  .object({
    payload_days: days
      .optional()
      .describe("Prune the payload of records unchanged for this many days (0 or absent: never)."),
    records_days: days
      .optional()
      .describe("Delete the records of a model no sync run has written for this many days (0 or absent: never)."),
  })
  .strict();
const retentionAnswer = dataOf(z.object({ payload_days: days, records_days: days }));
const present = (r: { payloadDays: number; recordsDays: number } | undefined) =>
  json({ data: { payload_days: r?.payloadDays ?? 0, records_days: r?.recordsDays ?? 0 } });
const NOTE =
  "Never past what the app has read: a record is pruned or deleted only once GET /records, the change feed or PATCH /records/prune has gone past its cursor.";

/** GET and PUT /integrations/{key}/records-retention: how long the integration's records are kept. */
export function recordsRetentionRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/integrations/:key/records-retention",
      handler: async ({ params, clients }) => {
        const res = await clients.scripts.getRecordRetention({ providerConfigKey: params.key as string });
        return present(res.retention);
      },
      doc: {
        summary: "Read an integration's records retention",
        description: `Beyond Nango (which keeps payloads 30 days and records 60 days, with no choice): 0 means kept, the default. ${NOTE}`,
        tags: ["Records"],
        params: { key: "The integration's id." },
        responses: { 200: retentionAnswer },
        errors: ["unknown_provider_config"],
      },
    },
    {
      method: "PUT",
      pattern: "/integrations/:key/records-retention",
      handler: async ({ req, params, clients }) => {
        const body = parseWith(retentionBody, await readJson(req, 4 * 1024), "invalid_body", "body");
        const res = await clients.scripts.setRecordRetention({
          providerConfigKey: params.key as string,
          retention: { payloadDays: body.payload_days ?? 0, recordsDays: body.records_days ?? 0 },
        });
        return present(res.retention);
      },
      doc: {
        summary: "Set an integration's records retention",
        description: `Applied by the scripts service's retention pass (JUNCTION_SCRIPTS_RECORD_RETENTION_SWEEP_MS). ${NOTE}`,
        tags: ["Records"],
        params: { key: "The integration's id." },
        body: retentionBody,
        responses: { 200: retentionAnswer },
        errors: ["unknown_provider_config"],
      },
    },
  ];
}
