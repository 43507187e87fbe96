import type { Client } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import type { Bus } from "@junction/bus";
import type { Clock, Logger, MetricsRegistry } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { ManagedChannels } from "./managed/managed-channels.ts";
import type { ChannelTokens } from "./channel-tokens.ts";
import type { ChannelStore } from "./store/store.ts";

/** The part of fetch the service uses to call the upstream (injectable). */
export type HttpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** What the channel service's handlers need; passed in, never module-level. */
export interface ChannelServiceDeps {
  store: ChannelStore;
  /** Channel tokens sealed at rest: checked against their digest, opened to stop a channel. */
  tokens: ChannelTokens;
  /** The time channels are read at: an active channel past its expiration reads as expired. */
  clock: Clock;
  logger: Logger;
  /** The environment id the calls are made in (one account, one environment for now). */
  environment: () => Promise<string>;
  /**
   * Resolves a connection's upstream base URL and fresh credentials for StopChannels. Without it,
   * StopChannels is unavailable (the registry's reads still work).
   */
  proxy?: Client<typeof ProxyService>;
  /** Checks the integration StopChannels is asked to roll back (its provider must have channels). */
  connections?: Client<typeof ConnectionService>;
  /** Outbound HTTP to the upstream; global fetch by default. */
  fetch?: HttpFetch;
  /** Deadline of one upstream stop call (default 15 s). */
  stopTimeoutMs?: number;
  /** Where channel webhooks are queued (lifecycle: removed, reauthorization required). */
  bus?: Bus;
  /** Junction's own channels (integrations with managed_channels); lifecycle handling acts on them. */
  managed?: ManagedChannels;
  /** The process's metrics (channel stops). */
  metrics?: MetricsRegistry;
  /** The process's operations log: each upstream channel call (a rollback's stops) is recorded there. */
  operations?: OperationRecorder;
}
