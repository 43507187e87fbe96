import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { createProxyService, loadProxyConfig, type ProxyConfig } from "@junction/proxy-service";
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
    });
    return { routes: (r) => r.service(ProxyService, impl) };
  },
};
