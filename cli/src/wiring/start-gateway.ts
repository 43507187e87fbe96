import type { Bus } from "@junction/bus";
import {
  createGateway,
  type Gateway,
  type GatewayClients,
  type McpAuthOptions,
  type OverviewStore,
  type RunningGateway,
  serveGateway,
} from "@junction/gateway";
import type { Clock, Logger, MetricsRegistry, ReadinessCheck, Tracing } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { bootstrapSecretKey } from "../secret-key-bootstrap.ts";
import { refuseTakenPort } from "../taken-port.ts";
import type { GatewaySettings } from "./gateway-settings.ts";

/** What the gateway calls and reports on, as its topology builds them once the base URL is known. */
export interface GatewayPeers {
  clients: GatewayClients;
  /** What GET /ready checks: the services the gateway calls, and in the embedded process the store and bus. */
  readiness: ReadinessCheck[];
  /** Carries an authorization's result to the gateway process holding the SDK's socket (distributed: NATS). */
  bus?: Bus;
  /** Where the overview's buckets are kept, and the sampler that fills them (started once the gateway serves). */
  overview: { store: OverviewStore; sampler: { start(): Promise<void> } };
  /** The MCP front door's store and client-metadata fetch; its settings are the gateway's. */
  mcpAuth?: Omit<McpAuthOptions, "settings" | "allowedPrivateHosts">;
  /** Starts once the gateway serves (the embedded services' workers). */
  start?(): Promise<void>;
  /** Stops what the topology built, in its order, once the gateway's server stopped. */
  stop(): Promise<void>;
}

/** What differs between the topologies around the gateway; the rest (settings, order) is the same. */
export interface GatewayTopology {
  settings: GatewaySettings;
  logger: Logger;
  clock?: Clock;
  metrics: MetricsRegistry;
  operations: OperationRecorder;
  tracing?: Tracing;
  /** Overrides PORT (0 picks a free port) and JUNCTION_HOST. */
  port?: number;
  hostname?: string;
  /**
   * Embedded (true): the port is bound first and answers 503 until the gateway serves, because without
   * JUNCTION_BASE_URL the base URL names the bound port. Distributed (false): the port is only checked free
   * first, and bound once the secret key exists (a healthy gateway must accept the configured key).
   */
  bindFirst: boolean;
  /** {base_url}; without it, http://localhost:<the bound port>. */
  baseUrl: string | undefined;
  /** How long the key bootstrap waits for the connection service (a distributed one may still be starting). */
  keyWaitMs?: number;
  /** Told a key generated on this first start, before the gateway serves. */
  onGeneratedKey?(key: string): void;
  /** Builds what the gateway calls once the base URL is known. */
  peers(baseUrl: string): Promise<GatewayPeers>;
}

export interface StartedGateway {
  server: RunningGateway;
  baseUrl: string;
  clients: GatewayClients;
  /** The secret key generated on this first start, if one was. */
  generatedSecretKey: string | undefined;
  /** Sockets closed, server stopped, then the topology's own stop, tracing last. */
  stop(): Promise<void>;
}

/**
 * Starts the gateway of either topology, in one order: the port bound (or refused when taken) before
 * anything that stays is made, the peers built, the auth sockets' relay started, the secret key
 * bootstrapped, then the gateway served and the overview sampled.
 */
export async function startGateway(topology: GatewayTopology): Promise<StartedGateway> {
  const { settings } = topology;
  const port = topology.port ?? settings.port;
  const hostname = topology.hostname ?? settings.process.host;
  const listener = topology.bindFirst ? bindNow(port, hostname) : bindLater(port, hostname);
  const baseUrl = (topology.baseUrl ?? `http://localhost:${listener.port}`).replace(/\/+$/, "");
  const peers = await topology.peers(baseUrl);
  const gateway = createGateway({
    clients: peers.clients,
    baseUrl,
    overview: peers.overview.store,
    logger: topology.logger.child({ component: "gateway" }),
    ...(topology.clock ? { clock: topology.clock } : {}),
    proxySettings: settings.proxy,
    metrics: topology.metrics,
    metricsToken: settings.metricsToken,
    operations: topology.operations,
    addressOf: (req) => listener.addressOf(req),
    connectUi: settings.connectUi,
    mcpAuth: { ...peers.mcpAuth, settings: settings.mcpAuth, allowedPrivateHosts: settings.allowedPrivateHosts },
    readiness: peers.readiness,
    ...(topology.tracing ? { tracing: topology.tracing } : {}),
    ...(peers.bus ? { bus: peers.bus } : {}),
    authSocketSettings: settings.authSockets,
  });
  await gateway.authSockets.start();
  const generatedSecretKey = await bootstrapSecretKey(peers.clients.connection, settings.process.secretKey, {
    waitMs: topology.keyWaitMs ?? 0,
  });
  if (generatedSecretKey) topology.onGeneratedKey?.(generatedSecretKey);
  const server = listener.serve(gateway);
  await peers.overview.sampler.start();
  await peers.start?.();
  return {
    server,
    baseUrl,
    clients: peers.clients,
    generatedSecretKey,
    async stop() {
      await gateway.authSockets.stop();
      await server.stop();
      await peers.stop();
      await topology.tracing?.shutdown();
    },
  };
}

/** The gateway's port: its number, the address of a request it serves, and the serving itself. */
interface GatewayListener {
  port: number;
  addressOf(req: Request): string | undefined;
  serve(gateway: Gateway): RunningGateway;
}

/** Bound now, answering 503 until `serve` hands it the gateway. */
function bindNow(port: number, hostname: string): GatewayListener {
  let fetchImpl: Gateway["fetch"] = async () => new Response("starting", { status: 503 });
  let upgradeImpl: Gateway["upgrade"] = () => false;
  const server = serveGateway(
    { fetch: (req) => fetchImpl(req), upgrade: (req, srv) => upgradeImpl(req, srv) },
    { port, hostname },
  );
  return {
    port: server.port,
    addressOf: server.addressOf,
    serve(gateway) {
      fetchImpl = gateway.fetch;
      upgradeImpl = gateway.upgrade;
      return server;
    },
  };
}

/** Refused now when taken (as binding would be), bound only when `serve` is called. */
function bindLater(port: number, hostname: string): GatewayListener {
  refuseTakenPort(port, hostname);
  let served: RunningGateway | undefined;
  return {
    port,
    addressOf: (req) => served?.addressOf(req),
    serve(gateway) {
      served = serveGateway(gateway, { port, hostname });
      return served;
    },
  };
}
