import type { Client } from "@connectrpc/connect";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { toResolved } from "./resolve-cache.ts";
import type { UpstreamProxyDeps } from "./upstream-proxy.ts";

/** What the engine needs of the proxy service: a client of it (in process or over the network). */
export type ProxyServiceClient = Pick<Client<typeof ProxyService>, "resolveUpstream" | "reportChannelCall">;

/** The engine's credential resolver and channel reporter, as calls to the proxy service. */
export function proxyServiceCalls(proxy: ProxyServiceClient): Pick<UpstreamProxyDeps, "resolve" | "reportChannelCall"> {
  return {
    resolve: async (key, forceRefresh) =>
      toResolved(
        await proxy.resolveUpstream({
          providerConfigKey: key.providerConfigKey,
          connectionId: key.connectionId,
          forceRefresh,
        }),
      ),
    reportChannelCall: (report) => proxy.reportChannelCall(report),
  };
}
