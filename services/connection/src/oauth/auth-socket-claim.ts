import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";

/** What a WebSocket id looks like: the gateway's fresh ids, or Nango's (a UUID). */
const WS_CLIENT_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Binds the frontend SDK's WebSocket id to the connect session starting an authorization with it,
 * until the authorization's lifetime ends. The first session to use an id keeps it (the same session may
 * start again with it: a reloaded popup); another session's attempt is refused, so an id that leaked
 * cannot make its socket report someone else's connection. Returns "" when no id was given.
 */
export async function claimAuthSocket(
  ctx: ConnectionServiceContext,
  wsClientId: string,
  sessionId: string,
): Promise<string> {
  if (wsClientId === "") return "";
  if (!WS_CLIENT_ID.test(wsClientId)) {
    throw errors.invalidField("ws_client_id", "must be 16-64 letters, digits, '-' or '_'");
  }
  const now = ctx.clock.now();
  const held = await ctx.store.acquireLease(
    authSocketLease(wsClientId),
    sessionId,
    now,
    now + ctx.oauth.authorizationStateTtlMs,
  );
  if (!held) throw errors.authSocketInUse();
  return wsClientId;
}

/** The lease that binds a WebSocket id (the same table as the refresh leases, its own key space). */
export function authSocketLease(wsClientId: string): string {
  return `auth-socket:${wsClientId}`;
}
