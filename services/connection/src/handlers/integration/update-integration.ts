import type { UpdateIntegrationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { resealMovedCredentials } from "../../credentials.ts";
import { errors } from "../../errors.ts";
import { toIntegration } from "../../mappers.ts";
import { checkOAuthUrls } from "../../oauth/url-placeholders.ts";
import { secretContexts } from "../../secret-contexts.ts";
import type { IntegrationRecord } from "../../store/records.ts";
import { DuplicateKeyError } from "../../store/store.ts";
import { integrationOrRefuse } from "../integration-or-refuse.ts";
import { checkOverrides, checkProviderSettings, checkUniqueKey, nonEmpty } from "./integration-input.ts";

/** UpdateIntegration: the fields given change; a rename moves its connections and reseals their secrets. */
export async function updateIntegration(ctx: ConnectionServiceContext, req: UpdateIntegrationRequest) {
  const env = await ctx.environment();
  const current = await integrationOrRefuse(ctx, env.id, req.uniqueKey);
  const next = changed(ctx, env.id, current, req);
  const adapter = ctx.providers.get(next.provider);
  checkProviderSettings(adapter, req.providerSettings?.values ?? {}, req.managedChannels ?? false, ctx.addressPolicy);
  if (adapter) checkOAuthUrls(adapter, next.overrides, next.providerSettings ?? {});
  try {
    const found = await ctx.store.replaceIntegration(env.id, current.uniqueKey, next, (moved) =>
      resealMovedCredentials(ctx.encryptor, moved, next.uniqueKey),
    );
    if (!found) throw errors.unknownProviderConfig(req.uniqueKey);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw errors.integrationExists(next.uniqueKey);
    throw err;
  }
  return { integration: toIntegration(next, ctx.baseUrl) };
}

/** The integration with the request's changes applied (the secret sealed to its key, new or kept). */
function changed(
  ctx: ConnectionServiceContext,
  envId: string,
  current: IntegrationRecord,
  req: UpdateIntegrationRequest,
): IntegrationRecord {
  const next: IntegrationRecord = { ...current, updatedAt: ctx.clock.now() };
  if (req.newUniqueKey !== undefined && req.newUniqueKey !== current.uniqueKey) {
    checkUniqueKey(req.newUniqueKey);
    next.uniqueKey = req.newUniqueKey;
  }
  if (req.displayName !== undefined) next.displayName = req.displayName;
  if (req.clientId !== undefined) next.clientId = req.clientId;
  const secretContext = secretContexts.integrationClientSecret(envId, next.uniqueKey);
  if (req.clientSecret !== undefined) {
    next.clientSecretEnc = req.clientSecret ? ctx.encryptor.encrypt(req.clientSecret, secretContext) : null;
  } else if (next.clientSecretEnc && next.uniqueKey !== current.uniqueKey) {
    // Bound to the integration's key: a rename seals it again for the new one.
    const from = secretContexts.integrationClientSecret(envId, current.uniqueKey);
    next.clientSecretEnc = ctx.encryptor.reseal(next.clientSecretEnc, from, secretContext);
  }
  if (req.replaceScopes) next.scopes = [...new Set(req.scopes)];
  if (req.overrides) next.overrides = checkOverrides(req.overrides, ctx.addressPolicy);
  if (req.forwardWebhooks !== undefined) next.forwardWebhooks = req.forwardWebhooks;
  if (req.providerSettings) next.providerSettings = nonEmpty(req.providerSettings.values);
  if (req.managedChannels !== undefined) next.managedChannels = req.managedChannels;
  if (req.strictChannels !== undefined) next.strictChannels = req.strictChannels;
  return next;
}
