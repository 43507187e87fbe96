import type { GatewayClients } from "../../clients.ts";

/** Who an operation is about, as the operations log keeps it. */
export interface SessionParty {
  environmentId: string;
  endUser: string;
  tags: string[];
}

const NOBODY: SessionParty = { environmentId: "", endUser: "", tags: [] };

/** The codes that say the token names no live session: looking it up again would answer the same. */
export const NO_SESSION = new Set(["unknown_connect_session_token", "connect_session_expired"]);

/**
 * The environment, end user and tags of the connect session `token` names, when it is known and unexpired
 * (the connection service's lookup); nobody for no token, an unknown or expired one, or a lookup that fails.
 * The tags as the connection service records an attempt's: `key:value`.
 */
export async function sessionParty(clients: GatewayClients, token: string, code = ""): Promise<SessionParty> {
  if (!token || NO_SESSION.has(code)) return NOBODY;
  try {
    const session = await clients.connection.getConnectSession({ token });
    const endUserId = session.endUser?.id;
    return {
      environmentId: session.environmentId,
      endUser: typeof endUserId === "string" ? endUserId : "",
      tags: Object.entries(session.tags).map(([k, v]) => `${k}:${v}`),
    };
  } catch {
    return NOBODY;
  }
}
