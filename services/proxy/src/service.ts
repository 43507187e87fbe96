import type { Client, ServiceImpl } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import type { Clock, Logger } from "@junction/platform";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { DEFAULT_PROXY_CONFIG, type ProxyConfig } from "./config.ts";
import { reportChannelCall } from "./report-channel-call.ts";
import { resolveUpstream } from "./resolve-upstream.ts";

export interface ProxyServiceDeps {
  connections: Client<typeof ConnectionService>;
  /** Where observed channel calls are published. */
  bus: Bus;
  clock: Clock;
  logger: Logger;
  /** Its settings (JUNCTION_PROXY_RESOLVE_CACHE_MS); defaults when absent. */
  config?: ProxyConfig;
  /** The outbound address policy every resolved base URL passes (the operator's allowed hosts, DNS). */
  addressPolicy: OutboundAddressPolicy;
}

/** ProxyService: resolves (integration, connection) into the upstream, and reports channel calls. */
export function createProxyService(deps: ProxyServiceDeps): ServiceImpl<typeof ProxyService> {
  const config = deps.config ?? DEFAULT_PROXY_CONFIG;
  return {
    resolveUpstream: (req) =>
      resolveUpstream(
        { connections: deps.connections, clock: deps.clock, config, addressPolicy: deps.addressPolicy },
        req,
      ),
    async reportChannelCall(req) {
      return { published: await reportChannelCall(deps, req) };
    },
  };
}
