import type { CreateIntegrationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toIntegration } from "../../mappers.ts";
import { checkOAuthUrls } from "../../oauth/url-placeholders.ts";
import { secretContexts } from "../../secret-contexts.ts";
import type { IntegrationRecord } from "../../store/records.ts";
import { DuplicateKeyError } from "../../store/store.ts";
import { checkOverrides, checkProviderSettings, checkUniqueKey, nonEmpty } from "./integration-input.ts";

/** CreateIntegration: a new integration of a known provider, its client secret sealed to its key. */
export async function createIntegration(ctx: ConnectionServiceContext, req: CreateIntegrationRequest) {
  const env = await ctx.environment();
  checkUniqueKey(req.uniqueKey);
  const template = ctx.providers.get(req.provider);
  if (!template)
    throw errors.unknownProvider(
      req.provider,
      ctx.providers.list().map((p) => p.name),
    );
  const now = ctx.clock.now();
  const rec: IntegrationRecord = {
    environmentId: env.id,
    uniqueKey: req.uniqueKey,
    provider: template.name,
    displayName: req.displayName || template.displayName,
    clientId: req.clientId,
    clientSecretEnc: req.clientSecret
      ? ctx.encryptor.encrypt(req.clientSecret, secretContexts.integrationClientSecret(env.id, req.uniqueKey))
      : null,
    scopes: req.scopes.length > 0 ? [...new Set(req.scopes)] : template.defaultScopes,
    overrides: checkOverrides(req.overrides, ctx.addressPolicy),
    forwardWebhooks: true,
    useTestCredentials: false,
    providerSettings: nonEmpty(req.providerSettings),
    managedChannels: req.managedChannels,
    ...(req.strictChannels === undefined ? {} : { strictChannels: req.strictChannels }),
    createdAt: now,
    updatedAt: now,
  };
  checkProviderSettings(template, req.providerSettings, req.managedChannels, ctx.addressPolicy);
  checkOAuthUrls(template, rec.overrides, req.providerSettings);
  try {
    await ctx.store.insertIntegration(rec);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw errors.integrationExists(req.uniqueKey);
    throw err;
  }
  ctx.logger.info("integration created", { integration: rec.uniqueKey, provider: rec.provider });
  return { integration: toIntegration(rec, ctx.baseUrl) };
}
