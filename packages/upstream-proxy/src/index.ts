export type { ChannelCallReport } from "./channel-report.ts";
export { type HeaderRecord, headerRecord } from "./header-record.ts";
export {
  type ProxyControls,
  readProxyControls,
  readUpstreamRequest,
  type UpstreamRequest,
} from "./proxy-controls.ts";
export {
  DEFAULT_PROXY_SETTINGS,
  loadProxySettings,
  type ProxySettings,
  proxySettingsSchema,
} from "./proxy-settings.ts";
export { type ProxyServiceClient, proxyServiceCalls } from "./proxy-service.ts";
export { bodyOfBytes, hasNoBody, NO_BODY, type OutgoingBody, takeOutgoingBody } from "./request-body.ts";
export { plainRequestTarget, type RequestTarget } from "./request-target.ts";
export type { ResolvedUpstream, ResolveKey } from "./resolve-cache.ts";
export { assertSafePath, upstreamPath } from "./upstream-path.ts";
export {
  createUpstreamProxy,
  type ProxyCallObserver,
  type ProxyCaller,
  type UpstreamProxyDeps,
  type UpstreamProxyOptions,
} from "./upstream-proxy.ts";
export { type ProxyMetrics, proxyMetrics } from "./proxy-metrics.ts";
