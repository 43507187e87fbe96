import {
  type AuthSocketSettings,
  type ConnectUiSettings,
  loadAuthSocketSettings,
  loadConnectUiSettings,
  loadMcpAuthSettings,
  loadOverviewSettings,
  type McpAuthSettings,
} from "@junction/gateway";
import { loadPort } from "@junction/platform";
import { loadAllowedPrivateHosts } from "@junction/platform/outbound-address-policy";
import { loadProxySettings, type ProxySettings } from "@junction/upstream-proxy";
import { loadObserveSettings } from "../observe-settings.ts";
import { loadProcessSettings, type ProcessSettings } from "../process-settings.ts";

/** The gateway's port when PORT is unset, in both topologies. */
export const GATEWAY_DEFAULT_PORT = 3003;

/** Every setting of the gateway's process, read at once before anything starts: a bad one stops it at once. */
export interface GatewaySettings {
  /** PORT. */
  port: number;
  /** JUNCTION_HOST, JUNCTION_SECRET_KEY and the embedded sandbox upstream's. */
  process: ProcessSettings;
  /** JUNCTION_PROXY_*: the proxy engine's timeouts and retries. */
  proxy: ProxySettings;
  /** JUNCTION_CONNECT_UI_*. */
  connectUi: ConnectUiSettings;
  /** JUNCTION_MCP_*: the MCP front door. */
  mcpAuth: McpAuthSettings;
  /** JUNCTION_ALLOWED_PRIVATE_HOSTS: what the MCP front door may fetch although private. */
  allowedPrivateHosts: string[];
  /** JUNCTION_WEBSOCKETS_* and the authorization's lifetime: the frontend SDK's socket. */
  authSockets: AuthSocketSettings;
  /** JUNCTION_METRICS_TOKEN: GET /metrics answers 404 without one. */
  metricsToken: string | undefined;
  /** JUNCTION_OVERVIEW_SAMPLE_MS: how often the overview reads the processes' counters. */
  overviewSampleMs: number;
}

export function loadGatewaySettings(env: Record<string, string | undefined>): GatewaySettings {
  return {
    port: loadPort(env, "", GATEWAY_DEFAULT_PORT),
    process: loadProcessSettings(env),
    proxy: loadProxySettings(env),
    connectUi: loadConnectUiSettings(env),
    mcpAuth: loadMcpAuthSettings(env),
    allowedPrivateHosts: loadAllowedPrivateHosts(env),
    authSockets: loadAuthSocketSettings(env),
    metricsToken: loadObserveSettings(env).metricsToken,
    overviewSampleMs: loadOverviewSettings(env).sampleMs,
  };
}
