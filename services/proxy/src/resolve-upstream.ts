import type { Client } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type {
  ResolveUpstreamRequest,
  ResolveUpstreamResponseSchema,
} from "@junction/contracts/proxy/v1/proxy_service_pb";
import { type Clock, failedPrecondition, fromConnectError } from "@junction/platform";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ProxyConfig } from "./config.ts";

/** An answer stops being reusable this long before its token expires (the token is refreshed on use then). */
export const EXPIRY_MARGIN_MS = 60_000;

export interface ResolveDeps {
  connections: Client<typeof ConnectionService>;
  clock: Clock;
  config: ProxyConfig;
  addressPolicy: OutboundAddressPolicy;
}

/**
 * ResolveUpstream: the connection's fresh credentials (GetCredentials applies the refresh rule and
 * throws `connection_refresh_failed` when it cannot), the integration's base URL and for how long the answer may be reused.
 * The base URL (the definition's, an override, or one filled from the connection config) passes the
 * outbound address policy here, DNS answers included, on every resolve (at most JUNCTION_PROXY_RESOLVE_CACHE_MS
 * apart): the proxy and the scripts' proxy never call a private host the operator did not allow.
 */
export async function resolveUpstream(
  deps: ResolveDeps,
  req: ResolveUpstreamRequest,
): Promise<MessageInitShape<typeof ResolveUpstreamResponseSchema>> {
  const res = await deps.connections
    .getCredentials({
      providerConfigKey: req.providerConfigKey,
      connectionId: req.connectionId,
      forceRefresh: req.forceRefresh,
    })
    // Keeps the connection service's stable code (unknown_connection, connection_refresh_failed...)
    // across this second hop: a ConnectError rethrown as it is would lose it.
    .catch((err: unknown) => {
      throw fromConnectError(err);
    });
  const creds = res.credentials;
  if (!creds || (creds.accessToken === "" && creds.apiKey === "" && creds.username === "")) {
    throw failedPrecondition(
      "connection_has_no_credentials",
      `Connection "${req.connectionId}" has no upstream credentials; authorize it again.`,
    );
  }
  const baseUrl = res.integration?.overrides?.baseUrl || res.provider?.baseUrl || "";
  if (baseUrl === "") {
    throw failedPrecondition("integration_has_no_base_url", "The integration has no upstream base URL.");
  }
  await deps.addressPolicy.checkFetch(baseUrl, "base_url");
  const now = deps.clock.now();
  const expiresAt = Number(creds.expiresAtMs);
  const reuseUntil = now + deps.config.resolveCacheMs;
  const cacheUntil = expiresAt > 0 ? Math.min(reuseUntil, expiresAt - EXPIRY_MARGIN_MS) : reuseUntil;
  return {
    baseUrl,
    // As the provider's definition places the credentials (a Bearer token, an API key, Basic).
    headers: res.upstreamAuth?.headers ?? { authorization: `Bearer ${creds.accessToken}` },
    query: res.upstreamAuth?.query ?? {},
    cacheUntilMs: BigInt(Math.max(now, cacheUntil)),
    allowedOverrideHosts: res.provider?.allowedOverrideHosts ?? [],
    provider: res.integration?.provider ?? "",
    observeChannelCalls: Object.keys(res.provider?.webhookHeaders ?? {}).length > 0,
  };
}
