import type { ServiceImpl } from "@connectrpc/connect";
import { type ConnectionService, MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import type { NotificationAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { matchByEmail, matchNotification } from "../match-notification.ts";
import { CredentialRefresher } from "../refresh/credential-refresher.ts";
import { lookupIntegration } from "./connection/connection-lookup.ts";
import { createConnection } from "./connection/create-connection.ts";
import { deleteConnection } from "./connection/delete-connection.ts";
import { getCredentials } from "./connection/get-credentials.ts";
import { getConnection, listConnections } from "./connection/read-connections.ts";
import { updateConnection } from "./connection/update-connection.ts";
import { writeMetadata } from "./connection/write-metadata.ts";

type EmailKeyOf = NotificationAdapter["emailKeyOf"];

/** Most notifications in one MatchNotifications call. */
const MAX_MATCH_BATCH = 1000;

/** The connection RPCs, one file each under `connection/`; MatchNotifications below. */
export function connectionHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  const integration = (key: string) => lookupIntegration(ctx, key);
  // The matched connections' webhook URL overrides, read here rather than by the webhook service per message.
  const withOverrides = async <M extends { connectionIds: string[] }>(envId: string, key: string, match: M) => {
    const webhookUrlOverrides: Record<string, string> = {};
    for (const id of match.connectionIds) {
      const override = (await ctx.store.connectionWebhookOverride(envId, key, id))?.webhookUrlOverride;
      if (override) webhookUrlOverrides[id] = override;
    }
    return { ...match, webhookUrlOverrides };
  };
  const refresher = new CredentialRefresher(ctx);

  return {
    createConnection: (req) => createConnection(ctx, req),
    getConnection: (req) => getConnection(ctx, refresher, req),
    listConnections: (req) => listConnections(ctx, req),
    updateConnection: (req) => updateConnection(ctx, req),
    deleteConnection: (req) => deleteConnection(ctx, req),
    writeMetadata: (req) => writeMetadata(ctx, req),
    getCredentials: (req) => getCredentials(ctx, refresher, req),

    async matchNotifications(req) {
      if (req.requests.length > MAX_MATCH_BATCH) {
        throw errors.invalidField("requests", `must hold at most ${MAX_MATCH_BATCH} notifications`);
      }
      // One integration lookup per integration in the batch (usually one).
      const found = new Map<string, Promise<{ envId: string; nangoEmailHashes: boolean; emailKeyOf?: EmailKeyOf }>>();
      const results = [];
      for (const r of req.requests) {
        let scope = found.get(r.providerConfigKey);
        if (!scope) {
          scope = integration(r.providerConfigKey).then(({ env, rec }) => ({
            envId: env.id,
            nangoEmailHashes: rec.importedEmailHashes === true,
            emailKeyOf: ctx.providers.get(rec.provider)?.notifications?.emailKeyOf,
          }));
          found.set(r.providerConfigKey, scope);
        }
        const { envId, nangoEmailHashes, emailKeyOf } = await scope;
        // A channel's connection is matched exactly; an email the notification names goes to rule 2's tiers.
        const match =
          r.connectionId !== ""
            ? (await ctx.store.connectionWebhookOverride(envId, r.providerConfigKey, r.connectionId))
              ? { connectionIds: [r.connectionId], rule: MatchRule.CHANNEL }
              : { connectionIds: [], rule: MatchRule.NONE }
            : r.email !== ""
              ? await matchByEmail(ctx.store, envId, r.providerConfigKey, r.email, { nangoEmailHashes })
              : await matchNotification(
                  ctx.store,
                  envId,
                  r.providerConfigKey,
                  r.resourceUri,
                  { nangoEmailHashes },
                  emailKeyOf,
                );
        results.push(await withOverrides(envId, r.providerConfigKey, match));
      }
      return { results };
    },
  };
}
