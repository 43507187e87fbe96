import { MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionStore, EmailLookup, EmailTier, WatchUriMatch } from "./store/store.ts";

const RULE_OF_TIER: Record<EmailTier, MatchRule> = {
  emailAddressHash: MatchRule.EMAIL_ADDRESS_HASH,
  metadataEmailAddress: MatchRule.METADATA_EMAIL_ADDRESS,
  metadataEmail: MatchRule.METADATA_EMAIL,
};

/**
 * The connections a notification matched, their webhook URL overrides, and the rule that decided; by
 * rule 1, the integration too when the store read it with them.
 */
export interface NotificationMatch extends WatchUriMatch {
  rule: MatchRule;
}

/** How rule 2 looks an email up for a notification that rule 1 did not match. */
export type EmailRuleOptions = EmailLookup & { emailKeyOf: EmailKeyOf };

/** How the email of a resource URI is read (rule 2's key): the provider adapter's `emailKeyOf`. */
export type EmailKeyOf = (resourceUri: string) => string | null;

/**
 * Matches a notification to connections of one integration (spec: Webhook-to-connection matching).
 * Rule 1, the exact watch URI, wins. Otherwise rule 2 is tiered: the first of emailAddressHash,
 * metadata.emailAddress, metadata.email that matches any connection decides, and every connection
 * matching in that tier matches (fan-out, rule 3); the store looks the three tiers up in one call
 * (matchByEmail), also under Nango's emailAddressHash formula with `nangoEmailHashes` (an integration
 * with imported connections). No match is rule 4. Every lookup is indexed, and reads the matched
 * connections' webhook URL overrides with them. The email a resource URI names is read by
 * `emailKeyOf`, the provider's (`@junction/providers`' `emailKeyReader`); `options` may be given as a
 * function, called only when rule 1 matched nothing.
 */
export async function matchNotification(
  store: ConnectionStore,
  environmentId: string,
  providerConfigKey: string,
  resourceUri: string,
  options: EmailRuleOptions | (() => Promise<EmailRuleOptions>),
): Promise<NotificationMatch> {
  if (resourceUri !== "") {
    const byUri = await store.matchByWatchUri(environmentId, providerConfigKey, resourceUri);
    if (byUri.connectionIds.length > 0) return { ...byUri, rule: MatchRule.WATCH_URI };
  }
  const email = typeof options === "function" ? await options() : options;
  return matchByEmail(store, environmentId, providerConfigKey, email.emailKeyOf(resourceUri), email);
}

/**
 * Rule 2's tiers for an email (then rule 4): what a resource URI names, or what a notification
 * names itself (a mail provider's notification carries its account's email).
 */
export async function matchByEmail(
  store: ConnectionStore,
  environmentId: string,
  providerConfigKey: string,
  email: string | null,
  options: EmailLookup = {},
): Promise<NotificationMatch> {
  if (email !== null && email.trim() !== "") {
    const byEmail = await store.matchByEmail(environmentId, providerConfigKey, email, options);
    if (byEmail !== null) {
      const { connectionIds, webhookUrlOverrides } = byEmail;
      return { connectionIds, webhookUrlOverrides, rule: RULE_OF_TIER[byEmail.tier] };
    }
  }
  return { connectionIds: [], webhookUrlOverrides: {}, rule: MatchRule.NONE };
}
