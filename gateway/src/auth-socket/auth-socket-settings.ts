import { loadConfig } from "@junction/platform";
import { z } from "zod";

/** The frontend SDK's WebSocket on the gateway (docs/oauth.md, "The frontend SDK's popup"). */
export interface AuthSocketSettings {
  /** Where the socket is served besides `/` (Nango's NANGO_SERVER_WEBSOCKETS_PATH); "/" for the root only. */
  path: string;
  /** Sockets one gateway process holds at once; an upgrade past it gets 503. */
  maxSockets: number;
  /** A socket is closed this long after it opened: an authorization's lifetime, and a minute to start it. */
  lifetimeMs: number;
}

/** The minute between a socket's opening and the start of its authorization, at most. */
const START_MARGIN_MS = 60_000;

const schema = z.object({
  websocketsPath: z
    .string()
    .regex(/^\/[A-Za-z0-9._~\-/]*$/, "must be a path starting with /")
    .max(256)
    .default("/"),
  websocketsMaxSockets: z.coerce.number().int().positive().default(10_000),
  // The connection service's setting: how long an authorization may take.
  oauthStateTtlMs: z.coerce.number().int().positive().default(600_000),
});

export const DEFAULT_AUTH_SOCKET_SETTINGS: AuthSocketSettings = {
  path: "/",
  maxSockets: 10_000,
  lifetimeMs: 600_000 + START_MARGIN_MS,
};

/** JUNCTION_WEBSOCKETS_PATH, JUNCTION_WEBSOCKETS_MAX_SOCKETS and JUNCTION_OAUTH_STATE_TTL_MS. */
export function loadAuthSocketSettings(env: Record<string, string | undefined> = process.env): AuthSocketSettings {
  const s = loadConfig(schema, { prefix: "JUNCTION_", env });
  return {
    path: s.websocketsPath.length > 1 ? s.websocketsPath.replace(/\/+$/, "") || "/" : "/",
    maxSockets: s.websocketsMaxSockets,
    lifetimeMs: s.oauthStateTtlMs + START_MARGIN_MS,
  };
}
