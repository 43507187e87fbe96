import { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { loadProxySettings, type ProxySettings } from "@junction/upstream-proxy";
import type { ServiceSpec } from "@junction/wiring";
import type { ScriptRuntime } from "../runtime/script-runtime.ts";
import { loadScriptsConfig, type ScriptsConfig } from "./config.ts";
import { openScriptsStores, type ScriptsStores } from "./open-stores.ts";
import { createScriptsService, type ScriptsServiceInstance } from "./service.ts";

/** The scripts service's settings, with the proxy engine's (scripts' proxy calls run in its process). */
export interface ScriptsSpecConfig {
  scripts: ScriptsConfig;
  proxySettings: ProxySettings;
}

/** What a test may give the scripts service: a sandbox runtime shared by several instances. */
export interface ScriptsExtras {
  runtime?: () => Promise<ScriptRuntime>;
}

/** The scripts service in the service table: deploys, runs and schedules scripts in the sandbox pool. */
export const scriptsSpec: ServiceSpec<
  ScriptsSpecConfig,
  { scripts: ScriptsServiceInstance; stores: ScriptsStores },
  ScriptsExtras
> = {
  name: "scripts",
  defaultPort: 4105,
  // The proxy logic of /proxy runs in this process: scripts' calls stream to the upstream from here.
  needs: { clients: ["connection", "proxy", "channel", "webhook", "scripts"], bus: true, database: true },
  config: (env) => ({ scripts: loadScriptsConfig(env), proxySettings: loadProxySettings(env) }),
  async build(ctx, config, extras = {}) {
    const stores = await openScriptsStores(ctx.common, ctx.db);
    const clients = {
      connection: ctx.client("connection"),
      proxy: ctx.client("proxy"),
      channel: ctx.client("channel"),
      webhook: ctx.client("webhook"),
      scripts: ctx.client("scripts"),
    };
    const scripts = createScriptsService({
      scripts: stores.scripts,
      runs: stores.runs,
      store: stores.service,
      records: stores.records,
      clients: () => clients,
      bus: ctx.bus,
      clock: ctx.clock,
      logger: ctx.logger,
      environment: ctx.environment,
      config: config.scripts,
      proxySettings: config.proxySettings,
      metrics: ctx.metrics,
      operations: ctx.operations,
      ...(ctx.tracing ? { tracing: ctx.tracing } : {}),
      ...(extras.runtime ? { runtime: extras.runtime } : {}),
    });
    return {
      routes: (r) => r.service(ScriptsService, scripts.service),
      // Consumes the lifecycle and onWebhook jobs and runs syncs on their schedules.
      start: () => scripts.start(),
      stop: () => scripts.stop(),
      close: () => stores.close(),
      parts: { scripts, stores },
    };
  },
};
