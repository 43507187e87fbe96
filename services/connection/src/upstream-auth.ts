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
  definition: Pick<ProviderDefinition, "apiKey"> | undefined,
  creds: StoredCredentials,
): { headers: Record<string, string>; query: Record<string, string> } {
  switch (creds.type) {
    case "API_KEY": {
      const placement = definition?.apiKey ?? DEFAULT_API_KEY;
      const value = `${placement.prefix}${creds.apiKey ?? ""}`;
      return placement.in === "query"
        ? { headers: {}, query: { [placement.name]: value } }
        : { headers: { [placement.name.toLowerCase()]: value }, query: {} };
    }
    case "BASIC": {
      const pair = `${creds.username ?? ""}:${creds.password ?? ""}`;
      return { headers: { authorization: `Basic ${Buffer.from(pair, "utf8").toString("base64")}` }, query: {} };
    }
    default:
      return { headers: { authorization: `Bearer ${creds.accessToken}` }, query: {} };
  }
}
