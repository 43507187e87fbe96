import type { Database } from "bun:sqlite";
import { Code, ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import {
  type Clock,
  type CommonConfig,
  type Encryptor,
  errorBoundary,
  jsonDepthGuard,
  RPC_BINARY_OPTIONS,
  type Logger,
  MetricsRegistry,
  type Tracing,
} from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type {
  Env,
  ServiceClients,
  ServiceKey,
  ServiceSpec,
  TestCredentials,
  WiredService,
  WiringContext,
} from "./service-spec.ts";
import { createDirectTransport } from "./direct-transport.ts";
import { buildService, lateClients } from "./wire.ts";

/** What the services of one in-memory wiring share: the process's resources, or a test kit's. */
export interface InMemoryWiringOptions {
  env?: Env;
  common: CommonConfig;
  clock: Clock;
  logger: Logger;
  /** The services this wiring will build: a service's optional clients of them are given. */
  services: readonly ServiceKey[];
  bus?: Bus;
  db?: Database;
  encryptor?: Encryptor;
  /** {base_url}; needed by the services that declare it. */
  baseUrl?: () => string;
  testCredentials?: TestCredentials;
  /** DNS for the outbound address policy (a test resolver); the system's when absent. */
  lookup?: WiringContext["lookup"];
  /** Services built by another wiring (a test kit's peers), reached over these transports. */
  peers?: Partial<Record<ServiceKey, Transport>>;
  /** False for a wiring that stands for one process of the distributed topology. */
  embedded?: boolean;
  /** The process's metrics; a registry of the wiring's own when absent. */
  metrics?: MetricsRegistry;
  /** The process's tracing: spans around each call, `traceparent` in its headers. */
  tracing?: Tracing;
  /** The process's operations recorder; a switched-off one when absent. */
  operations?: OperationRecorder;
}

/** How one service is built: settings other than its env's, extras, and interceptors before the error boundary. */
export interface BuildOptions<C, X> {
  config?: C;
  extras?: X;
  interceptors?: Interceptor[];
}

/**
 * Services of the table in one process, each over a direct transport (direct-transport.ts: the messages
 * handed over, not encoded, through the same interceptors). Clients reach a service on their first call,
 * so services may be built in any order. The embedded default is one;
 * the services' test kits are others, building only the services they need (a client of a service
 * no wiring runs answers Unimplemented, as a router that does not serve it would).
 */
export class InMemoryWiring {
  readonly clients: ServiceClients;
  /** The metrics its services count in. */
  readonly metrics: MetricsRegistry;
  private readonly built: { name: ServiceKey; service: WiredService }[] = [];
  private readonly transports = new Map<ServiceKey, Transport>();

  constructor(private readonly options: InMemoryWiringOptions) {
    this.clients = lateClients((name) => this.transport(name));
    this.metrics = options.metrics ?? new MetricsRegistry();
  }

  /** The transport of a service this wiring built (to hand to another wiring as a peer). */
  transport(name: ServiceKey): Transport {
    const transport = this.transports.get(name) ?? this.options.peers?.[name];
    if (transport) return transport;
    if (this.options.services.includes(name)) {
      throw new Error(`the ${name} service was called before it was built`);
    }
    return notServed(name);
  }

  /** Builds one service with its settings read from the wiring's env, unless `config` gives them. */
  async build<C, P, X>(spec: ServiceSpec<C, P, X>, options: BuildOptions<C, X> = {}): Promise<WiredService<P>> {
    const o = this.options;
    const env = o.env ?? {};
    const config = options.config ?? spec.config(env);
    const wiring = {
      env,
      common: o.common,
      clock: o.clock,
      logger: o.logger,
      embedded: o.embedded ?? true,
      metrics: this.metrics,
      ...(o.tracing ? { tracing: o.tracing } : {}),
      ...(o.operations ? { operations: o.operations } : {}),
      clients: this.clients,
      runs: (name: ServiceKey) => o.services.includes(name) || o.peers?.[name] !== undefined,
      baseUrl: () => (o.baseUrl ? o.baseUrl() : ""),
      testCredentials: o.testCredentials,
      ...(o.lookup ? { lookup: o.lookup } : {}),
    };
    const resources = { bus: o.bus, db: o.db, encryptor: o.encryptor };
    const service = await buildService(spec, config, wiring, resources, options.extras);
    const tracing = o.tracing;
    const interceptors = [
      ...(tracing ? [tracing.connectServerInterceptor()] : []),
      ...(options.interceptors ?? []),
      errorBoundary(o.logger, this.metrics),
      jsonDepthGuard(),
    ];
    const transport = {
      binaryOptions: RPC_BINARY_OPTIONS,
      ...(tracing ? { interceptors: [tracing.connectInterceptor()] } : {}),
    };
    this.transports.set(
      spec.name,
      createDirectTransport((r) => service.routes(r), {
        router: { interceptors, binaryOptions: RPC_BINARY_OPTIONS },
        transport,
      }),
    );
    this.built.push({ name: spec.name, service });
    return service;
  }

  /** Starts every built service's workers, in build order. */
  async start(): Promise<void> {
    for (const { service } of this.built) await service.start?.();
  }

  /** Stops their workers, in reverse order. */
  async stop(): Promise<void> {
    for (const { service } of this.built.toReversed()) await service.stop?.();
  }

  /** Closes their stores (after `stop`, and after the bus is closed). */
  async close(): Promise<void> {
    await Promise.all(this.built.map(({ service }) => service.close?.()));
  }
}

/** What a kit reaches inside a built service; throws when the service exposes nothing. */
export function partsOf<P>(service: WiredService<P>): P {
  if (service.parts === undefined) throw new Error("the service exposes no parts");
  return service.parts;
}

/** A transport of a service no wiring runs: every call answers Unimplemented. */
function notServed(name: ServiceKey): Transport {
  const fail = () => Promise.reject(new ConnectError(`the ${name} service does not run here`, Code.Unimplemented));
  return { unary: fail, stream: fail } as Transport;
}
