import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { Bus } from "@junction/bus";
import type { Client } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { Clock, Encryptor, Logger, MetricsRegistry, Tracing } from "@junction/platform";
import { newId } from "@junction/platform";
import { type ConnectionSettings, connectionSettingsSchema } from "./connection-settings.ts";
import { DEFAULT_OAUTH_SETTINGS, type OAuthSettings } from "./oauth/oauth-settings.ts";
import type { ProviderCatalog } from "./providers/catalog.ts";
import type { ConnectionServiceStore } from "./store/store.ts";
import type { HostLookup } from "@junction/platform/address-policy";
import { hostsOf, OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import type { EnvironmentRecord } from "./store/records.ts";

/** What the connection service's handlers need; passed in, never module-level. */
export interface ConnectionServiceDeps {
  store: ConnectionServiceStore;
  encryptor: Encryptor;
  clock: Clock;
  logger: Logger;
  bus: Bus;
  providers: ProviderCatalog;
  /** {base_url} of the spec: the public address of the gateway. */
  baseUrl: string;
  /** OAuth settings (loadOAuthSettings); defaults for what is not given. */
  oauth?: Partial<OAuthSettings>;
  /** Operator settings (loadConnectionSettings); defaults for what is not given. */
  settings?: Partial<ConnectionSettings>;
  /** Outbound HTTP to the upstream (token endpoint, primary calendar); global fetch by default. */
  fetch?: HttpFetch;
  /** DNS for the outbound address policy (a test resolver in tests); the system's by default. */
  lookup?: HostLookup;
  /**
   * Stops the notification channels still active for a connection (the channel service's
   * StopChannels). Called just before the record is deleted, while its credentials still work; a
   * failure is logged and never blocks the deletion.
   */
  stopChannels?: (connection: {
    environmentId: string;
    providerConfigKey: string;
    connectionId: string;
  }) => Promise<void>;
  /**
   * The scripts service, when this Junction runs one (spec: Events 3): a new connection then also
   * enqueues a durable post-connection-creation job on `scripts.runs`, and DeleteConnection runs the
   * pre-connection-deletion scripts first (their failure never blocks the deletion).
   */
  scripts?: Pick<Client<typeof ScriptsService>, "runLifecycleEvent">;
  /** Deadline of the pre-connection-deletion scripts (default 30 s). */
  scriptsDeadlineMs?: number;
  /** The process's metrics (token refreshes); a registry of its own when absent. */
  metrics?: MetricsRegistry;
  /** The process's tracing: a span per token refresh. */
  tracing?: Tracing;
  /** The process's operations log: token refreshes and authorizations are recorded there. */
  operations?: OperationRecorder;
}

/** The part of fetch the service uses (injectable). */
export type HttpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Deps plus the environment, resolved once (one account, one environment for now). */
export interface ConnectionServiceContext extends ConnectionServiceDeps {
  oauth: OAuthSettings;
  settings: ConnectionSettings;
  fetch: HttpFetch;
  /** The outbound address policy with the operator's allowed hosts; `fetch` already applies it to every request. */
  addressPolicy: OutboundAddressPolicy;
  environment(): Promise<EnvironmentRecord>;
}

export function createContext(deps: ConnectionServiceDeps): ConnectionServiceContext {
  let env: Promise<EnvironmentRecord> | undefined;
  const oauth = { ...DEFAULT_OAUTH_SETTINGS, ...deps.oauth };
  const settings = { ...connectionSettingsSchema.parse({}), ...deps.settings };
  // The operator's test credentials (the built-in sandbox upstream among them) are configuration too.
  const addressPolicy = new OutboundAddressPolicy({
    allowedHosts: [...settings.allowedPrivateHosts, ...testCredentialHosts(oauth)],
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  });
  return {
    ...deps,
    oauth,
    settings,
    addressPolicy,
    // Token, refresh and post-authorization reads: checked before each request and each redirect hop.
    fetch: addressPolicy.guard(deps.fetch ?? ((input, init) => fetch(input, init)), "upstream_url"),
    environment() {
      env ??= deps.store.getOrCreateEnvironment(() => ({
        id: newId("env", deps.clock.now()),
        name: "prod",
        createdAt: deps.clock.now(),
      }));
      return env;
    },
  };
}

/** The hosts of the URLs in the operator's test credentials. */
function testCredentialHosts(oauth: OAuthSettings): string[] {
  return hostsOf(Object.values(oauth.testCredentials).flatMap((c) => [c.authorizationUrl, c.tokenUrl, c.baseUrl]));
}
