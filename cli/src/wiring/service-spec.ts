import type { Database } from "bun:sqlite";
import type { ConnectRouter } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { loadOAuthSettings } from "@junction/connection-service";
import type { GatewayClients } from "@junction/gateway";
import type { Clock, CommonConfig, Encryptor, Logger } from "@junction/platform";

export type Env = Record<string, string | undefined>;

/** A service reached over Connect: the gateway has a client for each. */
export type ServiceKey = keyof GatewayClients;

/** What a service's `build` is given by the process that runs it (embedded or distributed). */
export interface WiringContext {
  env: Env;
  common: CommonConfig;
  clock: Clock;
  /** The service's own logger (`component` is its name). */
  logger: Logger;
  /** True in the embedded default (one process), false in a distributed process. */
  embedded: boolean;
  /** The in-process bus (embedded) or this process's NATS connection (distributed); only with `needs.bus`. */
  bus: Bus;
  /** The encryptor for secrets at rest; only with `needs.encryptor`. */
  encryptor: Encryptor;
  /** Embedded: the one SQLite file; distributed: `<name>.sqlite`, or none when the store is MongoDB. */
  db: Database | undefined;
  /** A client of a service listed in `needs.clients`; asking for one not listed throws. */
  client<K extends ServiceKey>(name: K): GatewayClients[K];
  /** A client of a service in `needs.optionalClients`, if this topology runs that service. */
  optionalClient<K extends ServiceKey>(name: K): GatewayClients[K] | undefined;
  /** The environment id (asks the connection service, so needs its client). */
  environment(): Promise<string>;
  /** {base_url}, without a trailing slash. */
  baseUrl(): string;
  /** OAuth test credentials offered by the built-in sandbox upstream, when it runs. */
  testCredentials?: ReturnType<typeof loadOAuthSettings>["testCredentials"];
}

/** A built service: what it serves, and its workers' and stores' lifecycles. */
export interface WiredService {
  routes(r: ConnectRouter): void;
  /** Starts its workers (queue consumers, schedules), once every service of the process is built. */
  start?(): Promise<void>;
  /** Stops its workers. */
  stop?(): Promise<void>;
  /** Closes its stores, after every worker stopped and the bus closed. */
  close?(): Promise<void>;
}

/** One service of the table: the one description both topologies and the test kits are built from. */
export interface ServiceSpec<C = unknown> {
  name: ServiceKey;
  /** The Connect service it serves. */
  definition: Parameters<ConnectRouter["service"]>[0];
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
  build(ctx: WiringContext, config: C): Promise<WiredService>;
}
