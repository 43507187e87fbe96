import { createUpstreamProxy, type UpstreamProxyOptions } from "../proxy/upstream-proxy.ts";
import type { Route } from "../router.ts";

/** Every method Nango's proxy carries (spec: Proxy rules 3). HEAD is served by the GET route. */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** /proxy/{upstream path}: the authenticated, streaming proxy (spec: Endpoints, Proxy rules 1–3). */
export function proxyRoutes(options: UpstreamProxyOptions = {}): Route[] {
  const handler = createUpstreamProxy(options);
  return METHODS.map((method) => ({ method, pattern: "/proxy/*", handler }));
}
