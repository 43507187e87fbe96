import type { Database } from "bun:sqlite";
import type { HostLookup } from "@junction/platform/address-policy";
import type { ConnectRouter } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { Clock, CommonConfig, Encryptor, Logger, MetricsRegistry, Tracing } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { ServiceClients, ServiceKey } from "@junction/public-api/service-clients";

export type { ServiceClients, ServiceKey };

export type Env = Record<string, string | undefined>;

/** Operator-provided OAuth client for one provider, used by integrations in test mode (spec: Authentication 4). */
export interface TestCredential {
  clientId: string;
  clientSecret: string;
  /** Upstream URLs of this client, when they differ from the template's (the sandbox upstream). */
  authorizationUrl?: string;
  tokenUrl?: string;
  baseUrl?: string;
  /** Whether it points at the built-in sandbox upstream. */
  sandbox?: boolean;
}

/** Test credentials by provider name (the built-in sandbox upstream's, or the operator's). */
export type TestCredentials = Record<string, TestCredential>;

/** What a service's `build` is given by the process that runs it (embedded, distributed, a test kit). */
export interface WiringContext {
  env: Env;
  common: CommonConfig;
  clock: Clock;
  /** The service's own logger (`component` is its name). */
  logger: Logger;
  /** True in the embedded default (one process), false in a distributed process. */
  embedded: boolean;
  /** The process's metrics (GET /metrics): a service registers its counters here, once, at build. */
  metrics: MetricsRegistry;
  /** The process's tracing, when OTEL_EXPORTER_OTLP_ENDPOINT turns it on. */
  tracing?: Tracing;
  /** The process's operations log recorder (one per process; a switched-off one in a test kit that gives none). */
  operations: OperationRecorder;
  /** The in-process bus (embedded) or this process's NATS connection (distributed); only with `needs.bus`. */
  bus: Bus;
  /** The encryptor for secrets at rest; only with `needs.encryptor`. */
  encryptor: Encryptor;
  /** Embedded: the one SQLite file; distributed: `<name>.sqlite`, or none when the store is MongoDB. */
  db: Database | undefined;
  /** A client of a service listed in `needs.clients`; asking for one not listed throws. */
  client<K extends ServiceKey>(name: K): ServiceClients[K];
  /** A client of a service in `needs.optionalClients`, if this topology runs that service. */
  optionalClient<K extends ServiceKey>(name: K): ServiceClients[K] | undefined;
  /** The environment id (asks the connection service, so needs its client). */
  environment(): Promise<string>;
  /** {base_url}, without a trailing slash. */
  baseUrl(): string;
  /** OAuth test credentials offered by the built-in sandbox upstream, when it runs. */
  testCredentials?: TestCredentials;
  /** DNS for the outbound address policy: a test resolver in tests; the system's when absent. */
  lookup?: HostLookup;
}

/** A built service: what it serves, and its workers' and stores' lifecycles. */
export interface WiredService<P = unknown> {
  routes(r: ConnectRouter): void;
  /** Starts its workers (queue consumers, schedules), once every service of the process is built. */
  start?(): Promise<void>;
  /** Stops its workers. */
  stop?(): Promise<void>;
  /** Closes its stores, after every worker stopped and the bus closed. */
  close?(): Promise<void>;
  /** What a test kit may reach inside it (its stores, its runtime); the processes do not use it. */
  parts?: P;
}

/**
 * One service: what it needs, how its settings are read and how it is built. Each service's package
 * exports its own; the service table (cli/src/wiring/service-table.ts) lists them for both topologies,
 * and the test kits build the ones they need with an in-memory wiring (`InMemoryWiring`).
 *
 * `C` is its settings, `P` what it exposes to test kits, `X` what the process adds that is no setting:
 * a part of a higher layer (the scripts service's notification sink for the webhook service) or a
 * test's hook.
 */
export interface ServiceSpec<C = unknown, P = unknown, X = unknown> {
  name: ServiceKey;
  /** Its port in the distributed topology, unless JUNCTION_<NAME>_PORT says otherwise. */
  defaultPort: number;
  needs: {
    /** Services it calls. */
    clients: readonly ServiceKey[];
    /** Services it calls when the topology runs them (distributed: when JUNCTION_<NAME>_URL is set). */
    optionalClients?: readonly ServiceKey[];
    bus?: boolean;
    /** Secrets at rest: the distributed topology requires JUNCTION_ENCRYPTION_KEY. */
    encryptor?: boolean;
    /** A SQLite file of its own in the distributed topology (when the store is SQLite). */
    database?: boolean;
    /** {base_url}: the distributed topology requires JUNCTION_BASE_URL. */
    baseUrl?: boolean;
  };
  /** Reads its settings; runs before anything starts, so that a bad setting stops the process at once. */
  config(env: Env): C;
  build(ctx: WiringContext, config: C, extras?: X): Promise<WiredService<P>>;
}
