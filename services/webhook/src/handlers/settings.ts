import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { checkEndpointUrl, type EndpointPolicyOptions } from "../address-policy.ts";
import type { WebhookServiceContext } from "../context.ts";
import { acceptEndpointUrls, replaceEndpoints } from "../endpoints.ts";
import { errors } from "../errors.ts";
import { toSettings } from "../mappers.ts";
import { ensureSettings } from "../settings.ts";
import { DEFAULT_GRACE_MS, MAX_GRACE_MS, sealSigningSecret, signingSecretContext } from "../signing-secrets.ts";
import { generateSigningSecret } from "../signing.ts";

/** GetSettings, UpdateSettings, RotateSigningSecret and CheckEndpointUrl. */
export function settingsHandlers(ctx: WebhookServiceContext): Partial<ServiceImpl<typeof WebhookService>> {
  return {
    async getSettings() {
      const environmentId = await ctx.environment();
      const now = ctx.clock.now();
      const record = await ensureSettings(ctx.store, ctx.encryptor, environmentId, now);
      return { settings: toSettings(record, now) };
    },

    async updateSettings(req) {
      const urls = acceptEndpointUrls(req.endpointUrls, endpointOptions(ctx));
      const environmentId = await ctx.environment();
      let reveal = false;
      const record = await ctx.settings.change(environmentId, (current, now) => {
        const endpoints = replaceEndpoints(current.endpoints, urls, now);
        // The first endpoint is when the secret starts to matter: its answer shows it, once.
        reveal = !current.signingSecretShown && endpoints.length > 0;
        return { endpoints, signingSecretShown: current.signingSecretShown || reveal };
      });
      ctx.logger.info("webhook endpoints updated", { environmentId, endpoints: record.endpoints.length });
      const signingSecret = reveal
        ? ctx.encryptor.decrypt(record.signingSecretEnc, signingSecretContext(environmentId))
        : "";
      return { settings: toSettings(record, record.updatedAt), signingSecret };
    },

    // A connection's webhook URL override: the endpoints' rules (https; private addresses only when allowed).
    async checkEndpointUrl(req) {
      const check = checkEndpointUrl(req.url, endpointOptions(ctx), req.field || "url");
      if (!check.ok) throw errors.invalidWebhookUrl(req.field || "url", check.reason);
      return { url: check.url };
    },

    async rotateSigningSecret(req) {
      if (req.graceMs < 0n || req.graceMs > BigInt(MAX_GRACE_MS))
        throw errors.invalidGracePeriod(req.graceMs, MAX_GRACE_MS);
      const graceMs = req.graceMs === 0n ? DEFAULT_GRACE_MS : Number(req.graceMs);
      const environmentId = await ctx.environment();
      let plaintext = "";
      const record = await ctx.settings.change(environmentId, (current, now) => {
        plaintext = generateSigningSecret();
        return {
          ...sealSigningSecret(ctx.encryptor, environmentId, plaintext),
          // One previous secret at most: rotating again within the grace period retires the older one.
          previousSigningSecretEnc: current.signingSecretEnc,
          previousSecretValidUntil: now + graceMs,
          signingSecretShown: true,
        };
      });
      ctx.logger.info("webhook signing secret rotated", {
        environmentId,
        previousValidUntil: new Date(record.previousSecretValidUntil as number).toISOString(),
      });
      return { signingSecret: plaintext, settings: toSettings(record, record.updatedAt) };
    },
  };
}

/** The endpoints' policy options of this service: the local-development switch and the operator's hosts. */
function endpointOptions(ctx: WebhookServiceContext): EndpointPolicyOptions {
  return { allowPrivate: ctx.allowPrivateEndpoints, allowedHosts: ctx.allowedPrivateHosts ?? [] };
}
