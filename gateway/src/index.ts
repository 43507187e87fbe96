export { createGateway, type Gateway, type GatewayDeps } from "./gateway.ts";
export { serveGateway, type RunningGateway } from "./serve.ts";
export { createGatewayClients, type GatewayClients } from "./clients.ts";
export type { Route, RouteContext, Handler } from "./router.ts";
export { errorResponse } from "./http/error-response.ts";
export { readJson, parseWith, queryObject } from "./http/read-json.ts";
export { loadConnectUiSettings, type ConnectUiSettings } from "./connect-ui/connect-ui-settings.ts";
export { loadAuthSocketSettings, type AuthSocketSettings } from "./auth-socket/auth-socket-settings.ts";
