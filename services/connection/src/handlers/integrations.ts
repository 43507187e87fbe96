import { integrationOrRefuse } from "./integration-or-refuse.ts";
import { INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE } from "@junction/public-api/limits";
import type { ServiceImpl } from "@connectrpc/connect";
import { invalidArgument } from "@junction/platform";
import { integrationSettingsProblems, MAX_SETTING_VALUE_CHARS, type ProviderAdapter } from "@junction/providers";
import type { ConnectionService, UpstreamOverrides } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { resealMovedCredentials } from "../credentials.ts";
import { errors } from "../errors.ts";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { secretContexts } from "../secret-contexts.ts";
import { toIntegration, toProvider } from "../mappers.ts";
import { checkOAuthUrls } from "../oauth/url-placeholders.ts";
import type { IntegrationRecord, UpstreamOverridesRecord } from "../store/records.ts";
import { DuplicateKeyError } from "../store/store.ts";

export function checkUniqueKey(key: string, path = "unique_key"): void {
  if (!INTEGRATION_KEY_PATTERN.test(key)) throw errors.invalidField(path, INTEGRATION_KEY_RULE);
}

/** The REST names of an integration's URL overrides, for the field an error names. */
const OVERRIDE_FIELDS = {
  baseUrl: "upstream_overrides.base_url",
  authorizationUrl: "upstream_overrides.authorization_url",
  tokenUrl: "upstream_overrides.token_url",
} as const;

function checkOverrides(o: UpstreamOverrides | undefined, policy: OutboundAddressPolicy): UpstreamOverridesRecord {
  const out: UpstreamOverridesRecord = {};
  if (!o) return out;
  for (const [field, value] of [
    ["baseUrl", o.baseUrl],
    ["authorizationUrl", o.authorizationUrl],
    ["tokenUrl", o.tokenUrl],
  ] as const) {
    if (!value) continue;
    // Scheme and literal host by the address policy; DNS when fetched.
    if (!policy.checkSaved(value, OVERRIDE_FIELDS[field])) {
      throw errors.invalidField(`overrides.${field}`, "must be an absolute http(s) URL");
    }
    out[field] = value.replace(/\/+$/, "");
  }
  return out;
}

/**
 * Refuses provider settings its adapter does not declare, values over the bound, and managed channels
 * its adapter cannot create (the gateway checks the same at the edge; this holds for every caller).
 */
function checkProviderSettings(
  adapter: ProviderAdapter | undefined,
  settings: Readonly<Record<string, string>>,
  managedChannels: boolean,
  policy: OutboundAddressPolicy,
): void {
  const [problem] = integrationSettingsProblems(adapter, { settings, managedChannels });
  if (problem) throw invalidArgument(problem.code, `${problem.path} ${problem.message}.`, [problem]);
  // A setting Junction fetches (a JWKS URL): https, or http to a host the operator allowed.
  for (const setting of adapter?.integrationSettings ?? []) {
    const value = settings[setting.key];
    if (setting.isUrl && value) policy.checkSaved(value, `provider_settings.${setting.key}`, { httpsOnly: true });
  }
  for (const [key, value] of Object.entries(settings)) {
    if (value.length > MAX_SETTING_VALUE_CHARS) {
      throw errors.invalidField(`provider_settings.${key}`, `must be at most ${MAX_SETTING_VALUE_CHARS} characters`);
    }
  }
}

/** Settings as stored: empty values left out (they mean "the adapter's default"). */
const nonEmpty = (settings: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== ""));

export function integrationHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  const load = async (key: string) => {
    const env = await ctx.environment();
    return integrationOrRefuse(ctx, env.id, key);
  };

  return {
    async createIntegration(req) {
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
    },

    async getIntegration(req) {
      const rec = await load(req.uniqueKey);
      const template = ctx.providers.get(rec.provider);
      return { integration: toIntegration(rec, ctx.baseUrl), provider: template ? toProvider(template) : undefined };
    },

    async listIntegrations() {
      const env = await ctx.environment();
      const recs = await ctx.store.listIntegrations(env.id);
      return { integrations: recs.map((r) => toIntegration(r, ctx.baseUrl)) };
    },

    async updateIntegration(req) {
      const env = await ctx.environment();
      const current = await load(req.uniqueKey);
      const next: IntegrationRecord = { ...current, updatedAt: ctx.clock.now() };
      if (req.newUniqueKey !== undefined && req.newUniqueKey !== current.uniqueKey) {
        checkUniqueKey(req.newUniqueKey);
        next.uniqueKey = req.newUniqueKey;
      }
      if (req.displayName !== undefined) next.displayName = req.displayName;
      if (req.clientId !== undefined) next.clientId = req.clientId;
      const secretContext = secretContexts.integrationClientSecret(env.id, next.uniqueKey);
      if (req.clientSecret !== undefined) {
        next.clientSecretEnc = req.clientSecret ? ctx.encryptor.encrypt(req.clientSecret, secretContext) : null;
      } else if (next.clientSecretEnc && next.uniqueKey !== current.uniqueKey) {
        // Bound to the integration's key: a rename seals it again for the new one.
        const from = secretContexts.integrationClientSecret(env.id, current.uniqueKey);
        next.clientSecretEnc = ctx.encryptor.reseal(next.clientSecretEnc, from, secretContext);
      }
      if (req.replaceScopes) next.scopes = [...new Set(req.scopes)];
      if (req.overrides) next.overrides = checkOverrides(req.overrides, ctx.addressPolicy);
      if (req.forwardWebhooks !== undefined) next.forwardWebhooks = req.forwardWebhooks;
      if (req.providerSettings) next.providerSettings = nonEmpty(req.providerSettings.values);
      if (req.managedChannels !== undefined) next.managedChannels = req.managedChannels;
      if (req.strictChannels !== undefined) next.strictChannels = req.strictChannels;
      const adapter = ctx.providers.get(next.provider);
      checkProviderSettings(
        adapter,
        req.providerSettings?.values ?? {},
        req.managedChannels ?? false,
        ctx.addressPolicy,
      );
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
    },

    async deleteIntegration(req) {
      const env = await ctx.environment();
      await load(req.uniqueKey);
      const count = await ctx.store.countConnections(env.id, req.uniqueKey);
      if (count > 0 && !req.force) throw errors.integrationHasConnections(req.uniqueKey, count);
      const deleted = await ctx.store.deleteIntegration(env.id, req.uniqueKey);
      ctx.logger.info("integration deleted", { integration: req.uniqueKey, deletedConnections: deleted });
      return { deletedConnections: deleted };
    },
  };
}
