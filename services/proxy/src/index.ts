export { createProxyService, type ProxyServiceDeps } from "./service.ts";
export { DEFAULT_PROXY_CONFIG, loadProxyConfig, type ProxyConfig, proxyConfigSchema } from "./config.ts";
