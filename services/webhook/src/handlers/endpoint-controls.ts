import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { newId, parseId } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import { SigningKeys } from "../delivery/signing-keys.ts";
import { errors } from "../errors.ts";
import { stableStringify } from "../inbound/forward-message.ts";
import { toSettings } from "../mappers.ts";
import { ensureSettings } from "../settings.ts";
import { signatureHeaders } from "../signing.ts";
import type { EndpointRecord } from "../store/records.ts";

/** Said of an endpoint disabled from the API or the dashboard (one disabled after failing says why). */
export const DISABLED_BY_OPERATOR = "disabled by the operator";

/**
 * EnableEndpoint, DisableEndpoint and TestEndpoint. A disabled endpoint gets no delivery attempt:
 * messages are not held for it (holding would grow without bound and flood it when it comes back);
 * a message with no enabled endpoint left ends exhausted with that reason, and replay-failed sends it
 * once an endpoint is enabled again.
 */
export function endpointControlHandlers(ctx: WebhookServiceContext): Partial<ServiceImpl<typeof WebhookService>> {
  const keys = new SigningKeys(ctx.encryptor);
  const setEnabled = async (rawId: string, enabled: boolean) => {
    const id = parseId("ep", rawId);
    const environmentId = await ctx.environment();
    const record = await ctx.settings.change(environmentId, (current) => {
      if (!current.endpoints.some((e) => e.id === id)) throw errors.unknownEndpoint(id);
      return { endpoints: current.endpoints.map((e) => (e.id === id ? switched(e, enabled) : e)) };
    });
    ctx.logger.info(enabled ? "webhook endpoint enabled" : "webhook endpoint disabled", { endpointId: id });
    return { settings: toSettings(record, record.updatedAt) };
  };
  return {
    enableEndpoint: (req) => setEnabled(req.id, true),
    disableEndpoint: (req) => setEnabled(req.id, false),

    async testEndpoint(req) {
      const id = parseId("ep", req.id);
      const environmentId = await ctx.environment();
      const now = ctx.clock.now();
      const settings = await ensureSettings(ctx.store, ctx.encryptor, environmentId, now);
      const endpoint = settings.endpoints.find((e) => e.id === id);
      if (!endpoint) throw errors.unknownEndpoint(id);
      const messageId = newId("msg", now);
      const body = stableStringify({
        from: "junction",
        type: "test",
        message: "A test message: your endpoint received and can verify Junction's webhooks.",
        endpoint_id: endpoint.id,
        sent_at: new Date(now).toISOString(),
      });
      const headers = {
        ...signatureHeaders(keys.secrets(settings, now), messageId, Math.floor(now / 1000), body),
        "content-type": "application/json",
        "user-agent": "Junction-Webhooks/1",
      };
      const bytes = new TextEncoder().encode(body);
      const r = await ctx.send({ url: endpoint.url, headers, body: bytes, timeoutMs: ctx.delivery.attemptTimeoutMs });
      ctx.logger.info("webhook endpoint tested", { endpointId: id, statusCode: r.statusCode, error: r.error });
      return {
        messageId,
        url: endpoint.url,
        statusCode: r.statusCode,
        latencyMs: BigInt(Math.round(r.latencyMs)),
        responseSnippet: r.responseSnippet,
        error: r.error ?? "",
        body,
      };
    },
  };
}

/** The endpoint enabled (health and reason cleared) or disabled by hand. */
function switched(e: EndpointRecord, enabled: boolean): EndpointRecord {
  const base = { id: e.id, url: e.url, createdAt: e.createdAt };
  return enabled ? { ...base, enabled: true } : { ...base, enabled: false, disabledReason: DISABLED_BY_OPERATOR };
}
