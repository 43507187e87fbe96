import type { ServiceImpl } from "@connectrpc/connect";
import {
  type ConnectionService,
  type MatchNotificationRequest,
  MatchRule,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { emailKeyReader } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { matchByEmail, matchNotification, type NotificationMatch } from "../match-notification.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { integrationOrRefuse } from "./integration-or-refuse.ts";

/** Most notifications in one MatchNotifications call. */
const MAX_MATCH_BATCH = 1000;

/** The integration of a key in the batch, read at most once per batch, when first needed. */
type IntegrationOf = (key: string) => Promise<IntegrationRecord>;

/**
 * MatchNotifications (spec: Webhook-to-connection matching): the connections each notification is
 * for, with their webhook URL overrides and the integration as it is now (its provider, whether it
 * forwards), so that the webhook worker needs no other lookup to forward. An integration unknown here
 * (deleted since receipt) fails the batch with `unknown_provider_config`: its notifications are not
 * forwarded. A notification matched by its watch URI in a store that read the integration with the
 * match (SQLite's lookup statement) needs no read of the integration of its own.
 */
export function matchNotificationsHandler(
  ctx: ConnectionServiceContext,
): Pick<ServiceImpl<typeof ConnectionService>, "matchNotifications"> {
  return {
    async matchNotifications(req) {
      if (req.requests.length > MAX_MATCH_BATCH) {
        throw errors.invalidField("requests", `must hold at most ${MAX_MATCH_BATCH} notifications`);
      }
      const envId = (await ctx.environment()).id;
      const read = new Map<string, Promise<IntegrationRecord>>();
      const integrationOf: IntegrationOf = (key) => {
        let rec = read.get(key);
        if (!rec) {
          rec = integrationOrRefuse(ctx, envId, key);
          read.set(key, rec);
        }
        return rec;
      };
      const results = [];
      for (const r of req.requests) {
        if (!r.providerConfigKey) throw errors.invalidField("provider_config_key", "is required");
        const { integration, ...match } = await matchOne(ctx, envId, integrationOf, r);
        const { provider, forwardWebhooks } = integration ?? (await integrationOf(r.providerConfigKey));
        results.push({ ...match, provider, forwardWebhooks });
      }
      return { results };
    },
  };
}

/**
 * One notification: a channel's connection exactly, an email the notification names through rule 2's
 * tiers, or its resource URI (rules 1–2); each lookup reads the matched connections' overrides too.
 */
async function matchOne(
  ctx: ConnectionServiceContext,
  envId: string,
  integrationOf: IntegrationOf,
  r: MatchNotificationRequest,
): Promise<NotificationMatch> {
  const key = r.providerConfigKey;
  if (r.connectionId !== "") {
    const found = await ctx.store.connectionWebhookOverride(envId, key, r.connectionId);
    if (!found) return { connectionIds: [], rule: MatchRule.NONE, webhookUrlOverrides: {} };
    const webhookUrlOverrides = found.webhookUrlOverride ? { [r.connectionId]: found.webhookUrlOverride } : {};
    return { connectionIds: [r.connectionId], rule: MatchRule.CHANNEL, webhookUrlOverrides };
  }
  if (r.email !== "") {
    const rec = await integrationOf(key);
    return matchByEmail(ctx.store, envId, key, r.email, { nangoEmailHashes: rec.importedEmailHashes === true });
  }
  return matchNotification(ctx.store, envId, key, r.resourceUri, async () => {
    const rec = await integrationOf(key);
    return {
      nangoEmailHashes: rec.importedEmailHashes === true,
      emailKeyOf: emailKeyReader(ctx.providers.get(rec.provider)?.notifications),
    };
  });
}
