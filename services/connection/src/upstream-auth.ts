import type { ProviderDefinition } from "@junction/providers";
import type { StoredCredentials } from "./credentials.ts";

/** Nango's default for an API key: `Authorization: Bearer <key>`. */
const DEFAULT_API_KEY = { in: "header", name: "authorization", prefix: "Bearer " } as const;

/**
 * How calls to the upstream carry a connection's credentials, as its provider's definition places them:
 * an OAuth access token as a Bearer header, an API key in the header or query parameter the definition
 * names (with its prefix), a user name and password as a Basic header (RFC 7617).
 */
export function upstreamAuth(
  definition: Partial<Pick<ProviderDefinition, "apiKey" | "accessToken" | "proxyHeaders">> | undefined,
  creds: StoredCredentials,
): { headers: Record<string, string>; query: Record<string, string> } {
  const placed = credentialPlacement(definition, creds);
  // The definition's own headers (Notion-Version) go under the credentials'.
  const fixed: Record<string, string> = {};
  for (const [name, value] of Object.entries(definition?.proxyHeaders ?? {})) fixed[name.toLowerCase()] = value;
  return { headers: { ...fixed, ...placed.headers }, query: placed.query };
}

/** Where the definition puts the connection's credentials. */
function credentialPlacement(
  definition: Partial<Pick<ProviderDefinition, "apiKey" | "accessToken">> | undefined,
  creds: StoredCredentials,
): { headers: Record<string, string>; query: Record<string, string> } {
  switch (creds.type) {
    case "API_KEY": {
      const placement = definition?.apiKey ?? DEFAULT_API_KEY;
      return placedIn(placement, `${placement.prefix}${creds.apiKey ?? ""}`);
    }
    case "BASIC": {
      const pair = `${creds.username ?? ""}:${creds.password ?? ""}`;
      return { headers: { authorization: `Basic ${Buffer.from(pair, "utf8").toString("base64")}` }, query: {} };
    }
    default: {
      // An OAuth access token: Bearer (RFC 6750), unless the definition places it elsewhere.
      const placement = definition?.accessToken;
      if (!placement) return { headers: { authorization: `Bearer ${creds.accessToken}` }, query: {} };
      return placedIn(placement, `${placement.prefix}${creds.accessToken}`);
    }
  }
}

/** A credential in the header or query parameter a placement names. */
function placedIn(
  placement: { in: "header" | "query"; name: string },
  value: string,
): { headers: Record<string, string>; query: Record<string, string> } {
  return placement.in === "query"
    ? { headers: {}, query: { [placement.name]: value } }
    : { headers: { [placement.name.toLowerCase()]: value }, query: {} };
}
