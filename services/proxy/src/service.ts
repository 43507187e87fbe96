import type { Client, ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { type Clock, failedPrecondition, type Logger } from "@junction/platform";

export interface ProxyServiceDeps {
  connections: Client<typeof ConnectionService>;
  clock: Clock;
  logger: Logger;
}

/** How long before expiry an answer stops being reusable (the token is refreshed on use then). */
const EXPIRY_MARGIN_MS = 60_000;
/** Answers for tokens without a known expiry are reused this long at most. */
const UNKNOWN_EXPIRY_CACHE_MS = 30_000;

/** ProxyService: resolves (integration, connection) into the upstream base URL and auth headers. */
export function createProxyService(deps: ProxyServiceDeps): ServiceImpl<typeof ProxyService> {
  return {
    async resolveUpstream(req) {
      const res = await deps.connections.getCredentials({
        providerConfigKey: req.providerConfigKey,
        connectionId: req.connectionId,
      });
      const creds = res.credentials;
      if (!creds || creds.accessToken === "") {
        throw failedPrecondition(
          "connection_has_no_credentials",
          `Connection "${req.connectionId}" has no upstream credentials; authorize it again.`,
        );
      }
      const baseUrl = res.integration?.overrides?.baseUrl || res.provider?.baseUrl || "";
      if (baseUrl === "")
        throw failedPrecondition("integration_has_no_base_url", "The integration has no upstream base URL.");
      const now = deps.clock.now();
      const expiresAt = Number(creds.expiresAtMs);
      const cacheUntil = expiresAt > 0 ? expiresAt - EXPIRY_MARGIN_MS : now + UNKNOWN_EXPIRY_CACHE_MS;
      return {
        baseUrl,
        headers: { authorization: `Bearer ${creds.accessToken}` },
        cacheUntilMs: BigInt(Math.max(now, cacheUntil)),
        allowedOverrideHosts: res.provider?.allowedOverrideHosts ?? [],
        provider: res.integration?.provider ?? "",
      };
    },
  };
}
