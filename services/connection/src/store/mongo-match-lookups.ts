import type { Collection, Filter } from "mongodb";
import { emailAddressHash, nangoEmailAddressHash } from "../email-hash.ts";
import { type ConnectionDocument, emailHashQuery, watchUriQuery } from "./mongo-documents.ts";
import {
  type ConnectionMatch,
  connectionMatchOf,
  type EmailConnectionMatch,
  type EmailLookup,
  type EmailTier,
  normalizeEmail,
} from "./store.ts";

/**
 * The MongoDB connection store's matching lookups (spec: Webhook-to-connection matching), each one
 * query of an index scoped to the integration, projected to the connection id and its webhook URL
 * override (forwarding needs the override of every matched connection).
 */
export class MongoMatchLookups {
  constructor(private readonly connections: Collection<ConnectionDocument>) {}

  /** Rule 1: the connections listing the watch URI `uri`. */
  byWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<ConnectionMatch> {
    return this.matched(watchUriQuery(environmentId, providerConfigKey, uri));
  }

  /** Rule 2, tier 1: connection_config.emailAddressHash equal to one of `hashes`. */
  byEmailHash(environmentId: string, providerConfigKey: string, hashes: string[]): Promise<ConnectionMatch> {
    return this.matched(emailHashQuery(environmentId, providerConfigKey, hashes));
  }

  /** Rule 2, tier 2 or 3: the normalized metadata field equal to `email`. */
  async byMetadata(
    field: "emailAddress" | "email",
    environmentId: string,
    providerConfigKey: string,
    email: string,
  ): Promise<ConnectionMatch> {
    const value = normalizeEmail(email);
    if (value === null) return { connectionIds: [], webhookUrlOverrides: {} };
    return this.matched({ environmentId, providerConfigKey, [`lookup.${field}`]: value });
  }

  /** Rule 2 whole: the first tier that matches, one query per tier until one does. */
  async byEmail(envId: string, key: string, email: string, options: EmailLookup): Promise<EmailConnectionMatch | null> {
    const value = normalizeEmail(email);
    if (value === null) return null;
    const tiers: [EmailTier, () => Promise<ConnectionMatch>][] = [
      [
        "emailAddressHash",
        // Junction's formula, or also Nango's for integrations with imported connections: one query of one index.
        () => {
          const hashes = [emailAddressHash(value)];
          if (options.nangoEmailHashes) hashes.push(nangoEmailAddressHash(value));
          return this.byEmailHash(envId, key, hashes);
        },
      ],
      ["metadataEmailAddress", () => this.byMetadata("emailAddress", envId, key, value)],
      ["metadataEmail", () => this.byMetadata("email", envId, key, value)],
    ];
    for (const [tier, find] of tiers) {
      const match = await find();
      if (match.connectionIds.length > 0) return { tier, ...match };
    }
    return null;
  }

  private async matched(query: Filter<ConnectionDocument>): Promise<ConnectionMatch> {
    const docs = await this.connections
      .find(query)
      .project<{ connectionId: string; webhookUrlOverride?: string }>({
        _id: 0,
        connectionId: 1,
        webhookUrlOverride: 1,
      })
      .toArray();
    return connectionMatchOf(docs.map((d) => [d.connectionId, d.webhookUrlOverride] as const));
  }
}
