import type { JsonObject } from "@bufbuild/protobuf";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ServiceClients } from "@junction/public-api/service-clients";
import { presentConnection } from "@junction/public-api/connection-shape";
import { deepValueField, type Logger, tooDeep } from "@junction/platform";
import type { JsonValue } from "../../runtime/run-types.ts";
import type { ProxyConfiguration, ProxyResponse, ScriptHost } from "../../runtime/script-host.ts";
import { type FailureLog, scriptFailure } from "./host-failure.ts";
import type { ProxyScope } from "./proxy-call.ts";

/** The run a host serves. */
export interface RunScope {
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
  runId: string;
}

export interface RunHostDeps {
  clients: Omit<ServiceClients, "logs">;
  proxy: (scope: ProxyScope, config: ProxyConfiguration) => Promise<ProxyResponse>;
  logger: Logger;
}

type Metadata = { [key: string]: JsonValue };

/**
 * The script API of one run, backed by the connection and proxy services (spec: Script API):
 * `proxy` goes through the gateway's /proxy logic with the connection's credentials; the connection,
 * its metadata and the integration's webhook URL come from the connection service. Like Nango, a
 * script may name another connection (`providerConfigKey`/`connectionId` in a proxy config or in
 * getConnection): scripts are the customer's own code, with the customer's secret-key powers. Tokens
 * are never handed to scripts (getConnection shows `credentials.type` and `expires_at`, as the REST
 * API does), so that they cannot end up in run logs.
 */
export function createRunHost(deps: RunHostDeps, scope: RunScope, failures: FailureLog): ScriptHost {
  const { clients } = deps;
  const log = deps.logger.child({ runId: scope.runId });
  const fail = (what: string) => async (err: unknown) => {
    throw await scriptFailure(err, what, log, scope.runId, failures);
  };
  const webhookUrl = rememberedWebhookUrl(clients, scope.providerConfigKey);
  return {
    proxy: (config) =>
      deps
        .proxy(
          {
            environmentId: scope.environmentId,
            providerConfigKey: scope.providerConfigKey,
            connectionId: scope.connectionId,
            runId: scope.runId,
            clients,
            logger: log,
          },
          config,
        )
        .catch(fail(`nango.${config.method.toLowerCase()}(${config.endpoint})`)),

    getConnection: (providerConfigKey, connectionId) =>
      connectionOf(clients, providerConfigKey ?? scope.providerConfigKey, connectionId ?? scope.connectionId)
        .then((c) => presentConnection(c) as unknown as JsonValue)
        .catch(fail("nango.getConnection")),

    getMetadata: () =>
      connectionOf(clients, scope.providerConfigKey, scope.connectionId)
        .then((c) => (c.metadata ?? {}) as Metadata)
        .catch(fail("nango.getMetadata")),

    setMetadata: (metadata) =>
      writeMetadata(clients, scope, metadata, MetadataWriteMode.SET)
        .then(() => undefined)
        .catch(fail("nango.setMetadata")),

    updateMetadata: (metadata) =>
      writeMetadata(clients, scope, metadata, MetadataWriteMode.UPDATE)
        .then(() => undefined)
        .catch(fail("nango.updateMetadata")),

    getWebhookURL: () => webhookUrl().catch(fail("nango.getWebhookURL")),
  };
}

async function connectionOf(clients: RunHostDeps["clients"], providerConfigKey: string, connectionId: string) {
  const res = await clients.connection.getConnection({ providerConfigKey, connectionId });
  if (!res.connection) throw new Error("GetConnection answered without a connection");
  return res.connection;
}

/** Writes the run's connection's metadata. */
async function writeMetadata(
  clients: RunHostDeps["clients"],
  scope: RunScope,
  metadata: Metadata,
  mode: MetadataWriteMode,
) {
  // Refused here as the service would: deeper still, the RPC wire could not carry it there.
  const deep = deepValueField({ metadata });
  if (deep !== null) throw tooDeep("invalid_metadata", deep);
  return clients.connection.writeMetadata({
    providerConfigKey: scope.providerConfigKey,
    connectionIds: [scope.connectionId],
    metadata: metadata as JsonObject,
    mode,
  });
}

/** The integration's webhook URL, asked once per run, asked again only after a failure. */
function rememberedWebhookUrl(clients: RunHostDeps["clients"], providerConfigKey: string) {
  let webhookUrl: Promise<string | null> | undefined;
  return () => {
    webhookUrl ??= clients.connection
      .getIntegration({ uniqueKey: providerConfigKey })
      .then((res) => res.integration?.webhookUrl || null)
      .catch((err: unknown) => {
        webhookUrl = undefined;
        throw err;
      });
    return webhookUrl;
  };
}
