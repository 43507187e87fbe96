import type { ServiceImpl } from "@connectrpc/connect";
import {
  type ConnectionService,
  type MatchNotificationRequest,
  MatchRule,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { emailKeyReader } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { matchByEmail, matchNotification } from "../match-notification.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { integrationOrRefuse } from "./integration-or-refuse.ts";

/** Most notifications in one MatchNotifications call. */
const MAX_MATCH_BATCH = 1000;

/** What matching needs of an integration, looked up once per integration in a batch. */
interface MatchScope {
  envId: string;
  rec: IntegrationRecord;
}

/**
 * MatchNotifications (spec: Webhook-to-connection matching): the connections each notification is
 * for, with their webhook URL overrides and the integration as it is now (its provider, whether it
 * forwards), so that the webhook worker needs no other lookup to forward. An integration unknown here
 * (deleted since receipt) fails the batch with `unknown_provider_config`: its notifications are not
 * forwarded.
 */
export function matchNotificationsHandler(
  ctx: ConnectionServiceContext,
): Pick<ServiceImpl<typeof ConnectionService>, "matchNotifications"> {
  return {
    async matchNotifications(req) {
      if (req.requests.length > MAX_MATCH_BATCH) {
        throw errors.invalidField("requests", `must hold at most ${MAX_MATCH_BATCH} notifications`);
      }
      // One integration lookup per integration in the batch (usually one).
      const scopes = new Map<string, Promise<MatchScope>>();
      const results = [];
      for (const r of req.requests) {
        let scope = scopes.get(r.providerConfigKey);
        if (!scope) {
          scope = scopeOf(ctx, r.providerConfigKey);
          scopes.set(r.providerConfigKey, scope);
        }
        const { envId, rec } = await scope;
        const match = await matchOne(ctx, envId, rec, r);
        results.push({ ...match, provider: rec.provider, forwardWebhooks: rec.forwardWebhooks });
      }
      return { results };
    },
  };
}

async function scopeOf(ctx: ConnectionServiceContext, key: string): Promise<MatchScope> {
  const env = await ctx.environment();
  if (!key) throw errors.invalidField("provider_config_key", "is required");
  return { envId: env.id, rec: await integrationOrRefuse(ctx, env.id, key) };
}

/**
 * One notification: a channel's connection exactly, an email the notification names through rule 2's
 * tiers, or its resource URI (rules 1–2); each lookup reads the matched connections' overrides too.
 */
async function matchOne(
  ctx: ConnectionServiceContext,
  envId: string,
  rec: IntegrationRecord,
  r: MatchNotificationRequest,
) {
  const key = r.providerConfigKey;
  if (r.connectionId !== "") {
    const found = await ctx.store.connectionWebhookOverride(envId, key, r.connectionId);
    if (!found) return { connectionIds: [], rule: MatchRule.NONE, webhookUrlOverrides: {} };
    const webhookUrlOverrides = found.webhookUrlOverride ? { [r.connectionId]: found.webhookUrlOverride } : {};
    return { connectionIds: [r.connectionId], rule: MatchRule.CHANNEL, webhookUrlOverrides };
  }
  const nangoEmailHashes = rec.importedEmailHashes === true;
  return r.email !== ""
    ? matchByEmail(ctx.store, envId, key, r.email, { nangoEmailHashes })
    : matchNotification(ctx.store, envId, key, r.resourceUri, {
        nangoEmailHashes,
        emailKeyOf: emailKeyReader(ctx.providers.get(rec.provider)?.notifications),
      });
}
