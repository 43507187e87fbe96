import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { Bus } from "@junction/bus";
import type { ServiceClients } from "@junction/public-api/service-clients";
import type { Clock, Logger, MetricsRegistry, Tracing } from "@junction/platform";
import type { RunLimits } from "../runtime/run-types.ts";
import type { ScriptRuntime } from "../runtime/script-runtime.ts";
import type { ScriptRunStore, ScriptStore } from "../store/stores.ts";
import type { ProxySettings } from "@junction/upstream-proxy";
import type { ScriptsConfig } from "./config.ts";
import type { ProxyScope } from "./host/proxy-call.ts";
import type { ProxyConfiguration, ProxyResponse } from "../runtime/script-host.ts";
import type { ScriptsServiceStore } from "./store/service-store.ts";
import type { RecordStore } from "../records/record-store.ts";
import type { RecordChanges } from "../records/record-changes.ts";
import type { RecordFeeds } from "./handlers/record-feeds.ts";

/** What the scripts service needs; passed in, never module-level. */
export interface ScriptsServiceDeps {
  /** Uploaded scripts and their versions. */
  scripts: ScriptStore;
  /** The record of runs. */
  runs: ScriptRunStore;
  /** Sync schedules and script options. */
  store: ScriptsServiceStore;
  /** The syncs' records and checkpoints. */
  records: RecordStore;
  /**
   * Clients of the other services, as the gateway has them: the connection service (connections,
   * metadata, integrations) and the proxy service (what /proxy resolves and reports). A function: in
   * the embedded default they exist only once every service, this one included, is registered.
   */
  /** The services it calls (not the logs service: its operations go through the recorder). */
  clients: () => Omit<ServiceClients, "logs">;
  /** Durable queue `scripts.runs` (lifecycle and onWebhook runs). */
  bus: Bus;
  /** Schedules, run timestamps and retry delays. Run deadlines are wall-clock whatever the clock. */
  clock: Clock;
  logger: Logger;
  /** The environment the service works for (one for now); asked of the connection service. */
  environment: () => Promise<string>;
  config: ScriptsConfig;
  /** The proxy engine's timeouts and retries (JUNCTION_PROXY_*, loadProxySettings); defaults when absent. */
  proxySettings?: ProxySettings;
  /**
   * The sandbox runtime. By default one is started on first use (the first script validated or run)
   * with the config's pool size and limits, and closed by `stop`.
   */
  runtime?: () => Promise<ScriptRuntime>;
  /** This process's name in run leases; random by default. */
  instanceId?: string;
  /** The process's metrics (runs, their durations, sandbox kills, the scripts' proxy calls). */
  metrics?: MetricsRegistry;
  /** The process's tracing: the scripts' upstream attempts in the trace of the run's job. */
  tracing?: Tracing;
  /** The process's operations log: each run is recorded there with its logs. */
  operations?: OperationRecorder;
}

/** The handlers' and workers' view: the deps with the runtime, the limits and the proxy resolved. */
export interface ScriptsServiceContext extends Omit<ScriptsServiceDeps, "runtime" | "instanceId"> {
  runtime: () => Promise<ScriptRuntime>;
  instanceId: string;
  limits: RunLimits;
  proxy: (scope: ProxyScope, config: ProxyConfiguration) => Promise<ProxyResponse>;
  /** This process's record writes, signalled to its change feeds (`records` signals them). */
  recordChanges: RecordChanges;
  /** The change feeds open in this process. */
  recordFeeds: RecordFeeds;
}
