import type { GetConnectSessionResponse } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { iso } from "../../http/json.ts";
import { dataOf, isoOrNull } from "../../openapi/route-doc.ts";

const stringRecord = z.record(z.string(), z.string());
/** The answer of presentSession below (GET /connect/session). */
export const connectSessionAnswer = dataOf(
  z.object({
    endUser: z
      .object({
        id: z.string(),
        display_name: z.string().nullable(),
        email: z.string().nullable(),
        tags: stringRecord.nullable(),
        organization: z.object({ id: z.string(), display_name: z.string().nullable() }).nullable(),
      })
      .nullable(),
    tags: stringRecord.describe("The tags the connection will have."),
    expires_at: isoOrNull,
    allowed_integrations: z.array(z.string()).optional().describe("Only when the session limits them."),
    integrations_config_defaults: z
      .record(
        z.string(),
        z.object({
          user_scopes: z.string(),
          authorization_params: stringRecord,
          connection_config: z.record(z.string(), z.unknown()),
        }),
      )
      .optional(),
    overrides: z
      .record(
        z.string(),
        z.object({
          docs_connect: z.string().optional(),
          user_scopes: z.string().optional(),
          authorization_params: stringRecord.optional(),
          connection_config: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    isReconnecting: z.literal(true).optional().describe("Only for a reconnect session."),
    websocketsPath: z.string().describe("The path of the authorization WebSocket (Nango's `websocketsPath`)."),
    connectUISettings: z
      .object({
        theme: z.object({ light: z.object({ primary: z.string() }), dark: z.object({ primary: z.string() }) }),
        defaultTheme: z.enum(["light", "dark", "system"]),
        showWatermark: z.boolean(),
      })
      .describe("Nango's Connect UI settings: its accent colours and default theme."),
  }),
);

/** The Connect UI's accent colours (Junction's own UI's) and theme: the system's unless the page says. */
const CONNECT_UI_SETTINGS = {
  theme: { light: { primary: "#2f5bd3" }, dark: { primary: "#8fb0ff" } },
  defaultTheme: "system",
  showWatermark: false,
};

/** GET /connect/session's data, in Nango's shape (endUser, allowed_integrations, ..., isReconnecting). */
export function presentSession(s: GetConnectSessionResponse, websocketsPath: string) {
  const eu = s.endUser as Record<string, unknown> | undefined;
  const org = s.organization as Record<string, unknown> | undefined;
  const data: Record<string, unknown> = {
    endUser: eu
      ? {
          id: eu.id,
          display_name: eu.display_name ?? null,
          email: eu.email ?? null,
          tags: eu.tags ?? null,
          organization: org ? { id: org.id, display_name: org.display_name ?? null } : null,
        }
      : null,
    tags: s.tags,
    expires_at: iso(s.expiresAtMs),
  };
  if (s.allowedIntegrations.length > 0) data.allowed_integrations = s.allowedIntegrations;
  const defaults = Object.entries(s.integrationsConfigDefaults);
  if (defaults.length > 0) {
    data.integrations_config_defaults = Object.fromEntries(
      defaults.map(([k, d]) => [
        k,
        {
          user_scopes: d.userScopes.join(" "),
          authorization_params: d.authorizationParams,
          connection_config: d.connectionConfig ?? {},
        },
      ]),
    );
  }
  const overrides = Object.entries(s.overrides);
  if (overrides.length > 0) {
    data.overrides = Object.fromEntries(
      overrides.map(([k, o]) => {
        const out: Record<string, unknown> = {};
        if (o.docsConnect) out.docs_connect = o.docsConnect;
        if (o.userScopes.length > 0) out.user_scopes = o.userScopes.join(" ");
        if (Object.keys(o.authorizationParams).length > 0) out.authorization_params = o.authorizationParams;
        if (o.connectionConfig) out.connection_config = o.connectionConfig;
        return [k, out];
      }),
    );
  }
  if (s.reconnectConnectionId) data.isReconnecting = true;
  data.websocketsPath = websocketsPath;
  data.connectUISettings = CONNECT_UI_SETTINGS;
  return data;
}
