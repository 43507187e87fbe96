import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { successAnswer } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";
import { endUserBody } from "./connection-import.ts";
import { checkWebhookUrlOverride } from "./webhook-url-override.ts";

const str = z.string().min(1).max(255);
const query = z.object({ provider_config_key: str }).strict();
const body = z
  .object({
    // Deprecated in Nango in favour of tags; replaces the end user, and the tags derived from it.
    end_user: endUserBody.optional(),
    tags: z.record(z.string(), z.string()).optional(),
    webhook_url_override: z
      .string()
      .max(2048)
      .optional()
      .describe("Where this connection's webhooks go instead of the environment's endpoints; \"\" clears it."),
  })
  .strict();

/** Nango's PATCH /connections/{connectionId}: the end user, tags and webhook URL override. */
export function patchConnectionRoute(): Route {
  return {
    method: "PATCH",
    pattern: "/connections/:connectionId",
    handler: async ({ clients, req, url, params }) => {
      const q = parseWith(query, queryObject(url), "invalid_query_params", "query");
      const b = parseWith(body, await readJson(req, 64 * 1024), "invalid_body", "body");
      const override = b.webhook_url_override;
      await clients.connection.updateConnection({
        providerConfigKey: q.provider_config_key,
        connectionId: params.connectionId as string,
        endUser: b.end_user as JsonObject | undefined,
        setTags: b.tags !== undefined,
        tags: b.tags ?? {},
        // Checked before anything is written: a refused URL changes nothing.
        webhookUrlOverride: override === undefined ? undefined : await checkWebhookUrlOverride(clients, override),
      });
      return json({ success: true });
    },
    doc: {
      summary: "Edit a connection",
      description:
        "Sets its tags (with those derived from `end_user`), end user and webhook URL override, as Nango does; " +
        'absent fields are left as they are; `webhook_url_override: ""` clears the override.',
      tags: ["Connections"],
      params: { connectionId: "The connection's id (connection_id)." },
      query,
      body,
      responses: { 200: successAnswer },
      errors: ["unknown_provider_config", "unknown_connection", "invalid_tags", "invalid_webhook_url"],
    },
  };
}
