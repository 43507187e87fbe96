import { loadScriptsConfig, scriptsNotificationSink, scriptsSpec } from "@junction/scripts-runtime";
import {
  channelSpec,
  connectionSpec,
  logsSpec,
  proxySpec,
  type WebhookConfig,
  type WebhookExtras,
  webhookSpec,
} from "@junction/service-specs";
import { SERVICE_KEYS, type ServiceKey, type ServiceSpec } from "@junction/wiring";

/**
 * The webhook service with the scripts service's sink: syncs subscribed to webhooks get matched
 * notifications instead of (or as well as) forwarding, when the scripts service runs.
 */
const webhookWithScripts: ServiceSpec<WebhookConfig & { subscriptionCacheMs: number }, unknown, WebhookExtras> = {
  ...webhookSpec,
  config: (env) => ({ ...webhookSpec.config(env), subscriptionCacheMs: loadScriptsConfig(env).subscriptionCacheMs }),
  build(ctx, config, extras) {
    const scripts = ctx.optionalClient("scripts");
    const sinks = scripts ? [scriptsNotificationSink(scripts, { cacheMs: config.subscriptionCacheMs })] : [];
    return webhookSpec.build(ctx, config, { ...extras, sinks });
  },
};

/**
 * Every service but the gateway, by name: what each serves, needs and calls, built in this order. Both
 * topologies are built from it; each entry is its service package's spec. A service named in
 * SERVICE_DEFINITIONS (packages/public-api) without an entry here does not compile.
 */
const TABLE: Readonly<Record<ServiceKey, ServiceSpec>> = {
  connection: connectionSpec,
  proxy: proxySpec,
  channel: channelSpec,
  webhook: webhookWithScripts,
  scripts: scriptsSpec,
  logs: logsSpec,
};

/** The table's entries, in build order. */
export const SERVICE_TABLE: readonly ServiceSpec[] = SERVICE_KEYS.map((name) => TABLE[name]);

/** The table's entry for `name`. */
export function serviceSpec(name: ServiceKey): ServiceSpec {
  return TABLE[name];
}
