import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, readJson } from "../http/read-json.ts";
import type { RouteDoc } from "../openapi/route-doc.ts";
import type { RouteContext } from "../router.ts";
import { connectionAnswer, presentConnection } from "./present.ts";
import { checkWebhookUrlOverride } from "./webhook-url-override.ts";

const str = z.string().min(1).max(255);
const jsonObject = z.record(z.string(), z.unknown());
/** An end user as Nango's import and PATCH /connections/{id} take it. */
export const endUserBody = z
  .object({
    id: str,
    email: z.string().email().optional(),
    display_name: z.string().max(255).optional(),
    // Nango's end-user tags: kept on the end user, and among the connection's tags.
    tags: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** POST /connections: import a connection whose credentials were obtained elsewhere (Nango's import). */
const importBody = z
  .object({
    provider_config_key: str,
    connection_id: str.optional(),
    metadata: jsonObject.optional(),
    connection_config: jsonObject.optional(),
    credentials: z.discriminatedUnion("type", [
      z
        .object({
          type: z.literal("OAUTH2"),
          access_token: z.string().min(1),
          refresh_token: z.string().min(1).optional(),
          // Any date Nango's z.coerce.date() reads: a date string, or Unix milliseconds.
          expires_at: z
            .union([
              z.string().refine((v) => !Number.isNaN(Date.parse(v)), "must be a date"),
              z.number().int().positive(),
            ])
            .optional(),
          raw: jsonObject.optional(),
          // Nango's per-connection OAuth client; ignored: refreshes use the integration's client.
          config_override: z
            .object({
              client_id: z.string().min(1).max(255).optional(),
              client_secret: z.string().min(1).max(2048).optional(),
            })
            .strict()
            .optional(),
        })
        .strict(),
      // Nango's API key and basic credentials; the connection service checks them against the provider.
      z.object({ type: z.literal("API_KEY"), apiKey: z.string().max(4096) }).strict(),
      z.object({ type: z.literal("BASIC"), username: z.string().max(1024), password: z.string().max(4096) }).strict(),
    ]),
    end_user: endUserBody.optional(),
    // Nango's connection tags (stored, see docs/api.md).
    tags: z.record(z.string(), z.string()).optional(),
    // Where this connection's webhooks go instead of the endpoints (checked: checkWebhookUrlOverride).
    webhook_url_override: z.string().max(2048).optional(),
  })
  .strict();

/** The import's credentials as the service takes them. */
function importedCredentials(c: z.output<typeof importBody>["credentials"]) {
  if (c.type === "API_KEY") return { type: c.type, apiKey: c.apiKey };
  if (c.type === "BASIC") return { type: c.type, username: c.username, password: c.password };
  const expiresAt =
    c.expires_at === undefined ? 0 : typeof c.expires_at === "number" ? c.expires_at : Date.parse(c.expires_at);
  return {
    type: "OAUTH2",
    accessToken: c.access_token,
    refreshToken: c.refresh_token ?? "",
    expiresAtMs: BigInt(expiresAt),
    raw: (c.raw ?? {}) as JsonObject,
  };
}

/** POST /connections: imports a connection (Nango's import). */
export async function importConnection({ clients, req }: RouteContext): Promise<Response> {
  const body = parseWith(importBody, await readJson(req, 256 * 1024), "invalid_body", "body");
  const c = body.credentials;
  const { connection } = await clients.connection.createConnection({
    providerConfigKey: body.provider_config_key,
    connectionId: body.connection_id ?? "",
    metadata: body.metadata as JsonObject | undefined,
    connectionConfig: body.connection_config as JsonObject | undefined,
    endUser: body.end_user as JsonObject | undefined,
    tags: body.tags ?? {},
    webhookUrlOverride: await checkWebhookUrlOverride(clients, body.webhook_url_override),
    credentials: importedCredentials(c),
  });
  if (!connection) throw new Error("createConnection returned no connection");
  return json(presentConnection(connection));
}

export const importConnectionDoc: RouteDoc = {
  summary: "Import a connection",
  description:
    "A connection whose credentials were obtained elsewhere (Nango's import): OAuth tokens, an API key ({type: API_KEY, apiKey}) or a user name and password ({type: BASIC, username, password}), as the integration's provider authenticates.",
  tags: ["Connections"],
  body: importBody,
  responses: { 200: connectionAnswer },
  errors: [
    "unknown_provider_config",
    "connection_already_exists",
    "invalid_metadata",
    "invalid_tags",
    "invalid_request",
    "invalid_webhook_url",
    "private_address_not_allowed",
  ],
};
