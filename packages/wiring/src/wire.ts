import type { Database } from "bun:sqlite";
import type { Transport } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { Clock, CommonConfig, Encryptor, Logger, MetricsRegistry, Tracing } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { createServiceClients, SERVICE_KEYS } from "@junction/public-api/service-clients";
import type { Env, ServiceClients, ServiceKey, ServiceSpec, WiredService, WiringContext } from "./service-spec.ts";

/** What the process running some services of the table offers them. */
export interface ProcessWiring {
  env: Env;
  common: CommonConfig;
  clock: Clock;
  logger: Logger;
  embedded: boolean;
  metrics: MetricsRegistry;
  tracing?: Tracing;
  /** The process's operations recorder. */
  operations?: OperationRecorder;
  /** Clients of every service, as this process reaches them. */
  clients: ServiceClients;
  /** Whether this topology runs `name` (optional clients are given only then). */
  runs(name: ServiceKey): boolean;
  baseUrl(): string;
  testCredentials?: WiringContext["testCredentials"];
  lookup?: WiringContext["lookup"];
}

/** A transport made on its first call: clients can exist before the services they reach are built. */
export function lateTransport(make: () => Transport): Transport {
  let transport: Transport | undefined;
  const get = () => {
    transport ??= make();
    return transport;
  };
  return {
    unary: (...args) => get().unary(...args),
    stream: (...args) => get().stream(...args),
  } as Transport;
}

/** Clients of every service, each over the transport `transportFor` makes on its first call. */
export function lateClients(transportFor: (name: ServiceKey) => Transport): ServiceClients {
  const transports = {} as Record<ServiceKey, Transport>;
  for (const name of SERVICE_KEYS) transports[name] = lateTransport(() => transportFor(name));
  return createServiceClients(transports);
}

/** Builds one service of the table with what the process offers, its bus and its database. */
export async function buildService<C, P, X>(
  spec: ServiceSpec<C, P, X>,
  config: C,
  wiring: ProcessWiring,
  resources: { bus?: Bus; db?: Database; encryptor?: Encryptor },
  extras?: X,
): Promise<WiredService<P>> {
  const { clients } = wiring;
  const declared = <T>(given: T | false | undefined, what: string): T => {
    if (!given) throw new Error(`the ${spec.name} service does not declare ${what}`);
    return given;
  };
  const client = <K extends ServiceKey>(name: K): ServiceClients[K] => {
    return declared(spec.needs.clients.includes(name) && clients[name], name);
  };
  const ctx: WiringContext = {
    env: wiring.env,
    common: wiring.common,
    clock: wiring.clock,
    logger: wiring.logger.child({ component: spec.name }),
    embedded: wiring.embedded,
    metrics: wiring.metrics,
    ...(wiring.tracing ? { tracing: wiring.tracing } : {}),
    operations: wiring.operations ?? new OperationRecorder({ clock: wiring.clock, enabled: false }),
    get bus() {
      return declared(spec.needs.bus && resources.bus, "the bus");
    },
    get encryptor() {
      return declared(spec.needs.encryptor && resources.encryptor, "the encryptor");
    },
    db: resources.db,
    client,
    optionalClient: (name) =>
      spec.needs.optionalClients?.includes(name) && wiring.runs(name) ? clients[name] : undefined,
    environment: async () => (await client("connection").getEnvironment({})).environment?.id ?? "",
    baseUrl: () => declared(spec.needs.baseUrl && wiring.baseUrl(), "the base URL"),
    testCredentials: wiring.testCredentials,
    ...(wiring.lookup ? { lookup: wiring.lookup } : {}),
  };
  return spec.build(ctx, config, extras);
}
