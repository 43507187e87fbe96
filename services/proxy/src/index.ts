export { createProxyService, type ProxyServiceDeps } from "./service.ts";
