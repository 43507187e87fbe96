/**
 * The prefix of a connect session token (the connection service issues them so). A route that accepts a
 * session token tells one from a secret key by it, before any lookup: a secret key never starts so.
 */
const SESSION_TOKEN_PREFIX = "jct_connect_session_";

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i;

/** The connect session token sent as `Authorization: Bearer <token>`, or undefined when the bearer is none. */
export function connectSessionBearer(header: string | string[] | null | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  const token = BEARER_RE.exec(header)?.[1];
  return token?.startsWith(SESSION_TOKEN_PREFIX) ? token : undefined;
}
