import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { createProxyService, loadProxyConfig, type ProxyConfig } from "@junction/proxy-service";
import { hostsOf, loadAllowedPrivateHosts, OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import type { ServiceSpec } from "@junction/wiring";

/** The proxy service in the service table: resolves a connection's upstream and fresh credentials. */
export const proxySpec: ServiceSpec<ProxyConfig> = {
  name: "proxy",
  defaultPort: 4102,
  needs: { clients: ["connection"], bus: true },
  config: (env) => loadProxyConfig(env),
  async build(ctx, config) {
    const impl = createProxyService({
      connections: ctx.client("connection"),
      bus: ctx.bus,
      clock: ctx.clock,
      logger: ctx.logger,
      config,
      // The operator's allowed hosts and the test credentials' (the sandbox upstream), as the connection service's.
      addressPolicy: new OutboundAddressPolicy({
        allowedHosts: [
          ...loadAllowedPrivateHosts(ctx.env),
          ...hostsOf(Object.values(ctx.testCredentials ?? {}).flatMap((c) => [c.baseUrl, c.tokenUrl])),
        ],
        ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
      }),
    });
    return { routes: (r) => r.service(ProxyService, impl) };
  },
};
