import type { SubmitConnectFormRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import type { StoredCredentials } from "../credentials.ts";
import { enteredCredentials } from "../entered-credentials.ts";
import { errors } from "../errors.ts";
import { isRefreshError } from "../refresh/credential-refresher.ts";
import { saveConnection } from "../save-connection.ts";
import { claimAuthSocket } from "./auth-socket-claim.ts";
import { enqueueAuthWebhook } from "./auth-webhook.ts";
import { recordAuthorization } from "./authorization-operation.ts";
import { endUserOf } from "./authorization-callback.ts";
import type { ProviderAdapter } from "@junction/providers";
import { resolveConnectSession, sessionConfigFor, sessionTarget } from "./connect-sessions.ts";
import { connectionBaseUrl } from "./oauth-client.ts";
import { checkConnectionHosts } from "../outbound/connection-hosts.ts";
import type { ConnectSessionRecord, EnvironmentRecord, IntegrationRecord } from "../store/records.ts";
import { clientCredentials } from "./client-credentials.ts";

const CREDENTIAL_KEYS = new Set(["apiKey", "username", "password"]);

/**
 * The connect page's form for a provider that is not authorized through a consent screen: the API key,
 * or user name and password, and the connection-config fields its definition names (checked as the
 * import checks them), or, for client credentials, nothing but the integration's own client. Creates the
 * connection (or updates a reconnect session's), then tells the customer as an authorization does.
 */
export async function submitConnectForm(
  ctx: ConnectionServiceContext,
  req: SubmitConnectFormRequest,
): Promise<{ connectionId: string; created: boolean; integrationDisplayName: string }> {
  const startedAtMs = ctx.clock.now();
  const session = await resolveConnectSession(ctx, req.connectSessionToken);
  // Bound before anything is saved: an id held by another session's attempt changes nothing.
  await claimAuthSocket(ctx, req.wsClientId, session.id);
  const key = req.providerConfigKey;
  const env = await ctx.environment();
  const { integ, template, connectionId } = await sessionTarget(ctx, session, key);
  if (template.authMode === "OAUTH2") {
    throw errors.invalidField(
      "provider_config_key",
      `provider "${template.name}" is connected through its authorization flow (/oauth/connect/${key}), not a form`,
    );
  }
  const connectionConfig = formConnectionConfig(template, req.fields, sessionConfigFor(session, key).connectionConfig);
  // A base URL the connection cannot fill is refused now, not at the first proxied call.
  connectionBaseUrl(integ, template, integ.overrides.baseUrl || template.baseUrl, connectionConfig);
  // ...and one the address policy refuses, before any credential is requested with it.
  checkConnectionHosts(ctx, integ, template, connectionConfig);
  const credentials = await formCredentials(ctx, integ, template, connectionConfig, req.fields);
  const endUser = endUserOf(session);
  const saved = await saveConnection(ctx, {
    env,
    integ,
    connectionId,
    credentials,
    connectionConfig,
    metadata: {},
    endUser,
    tags: session.tags,
    webhookUrlOverride: session.webhookUrlOverride,
    // New credentials clear the refresh failures of the ones they replace.
    reviseErrors: (errs) => errs.filter((e) => !isRefreshError(e.type)),
  });
  await tellConnected(ctx, { startedAtMs, env, integ, template, connectionId, session, endUser, saved });
  return { connectionId, created: saved.created, integrationDisplayName: integ.displayName };
}

/** The form's credentials: for client credentials a token of the integration's own client, else what was entered. */
async function formCredentials(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  connectionConfig: Record<string, unknown>,
  fields: Readonly<Record<string, string>>,
): Promise<StoredCredentials> {
  if (template.authMode === "OAUTH2_CC") return clientCredentials(ctx, integ, template, connectionConfig);
  const entered = {
    type: template.authMode,
    apiKey: fields.apiKey ?? "",
    username: fields.username ?? "",
    password: fields.password ?? "",
  };
  return enteredCredentials(template, entered, "");
}

/**
 * A saved connection is told as an authorization's is: its attempt recorded in the operations log, then the
 * customer's auth webhook (`creation` or `override`). The form's answer does not wait on the webhook's fate:
 * one that cannot be queued is logged.
 */
async function tellConnected(
  ctx: ConnectionServiceContext,
  done: {
    startedAtMs: number;
    env: EnvironmentRecord;
    integ: IntegrationRecord;
    template: ProviderAdapter;
    connectionId: string;
    session: ConnectSessionRecord;
    endUser: Record<string, unknown> | null;
    saved: Awaited<ReturnType<typeof saveConnection>>;
  },
): Promise<void> {
  const { env, integ, template, connectionId, saved } = done;
  recordAuthorization(
    ctx,
    {
      startedAtMs: done.startedAtMs,
      authMode: template.authMode,
      environmentId: env.id,
      integration: integ.uniqueKey,
      connection: connectionId,
      session: done.session,
    },
    { ok: true, created: saved.created },
  );
  try {
    await enqueueAuthWebhook(ctx, {
      env,
      integ,
      connectionId,
      operation: saved.created ? "creation" : "override",
      success: true,
      endUser: done.endUser,
      tags: saved.connection.tags,
      authMode: template.authMode,
    });
  } catch (err) {
    ctx.logger.error("auth webhook could not be enqueued", { error: err });
  }
}

/** The connection config of a form: the session's, then the definition's connect fields the user filled in. */
function formConnectionConfig(
  template: ProviderAdapter,
  fields: Readonly<Record<string, string>>,
  sessionConfig: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const connectionConfig: Record<string, unknown> = { ...sessionConfig };
  for (const field of template.connectFields) {
    if (CREDENTIAL_KEYS.has(field.key)) continue;
    const value = (fields[field.key] ?? "").trim();
    if (value !== "") connectionConfig[field.key] = value;
  }
  return connectionConfig;
}
