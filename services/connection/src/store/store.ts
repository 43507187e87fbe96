import { matchKeyMetadata } from "@junction/providers";
import type { ProviderDefinitionStore } from "./provider-definitions.ts";
import type { SealedCredentials, SecretRewriteStore } from "./secret-rewrite-store.ts";
import type {
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  ConnectSessionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  MetadataMode,
  OAuthStateRecord,
  SecretKeyRecord,
} from "./records.ts";

/** Thrown when a unique key is taken (integration key, connection id). */
export class DuplicateKeyError extends Error {
  override name = "DuplicateKeyError";
}

/** Thrown by an all-or-nothing metadata write when some connection ids do not exist; nothing was written. */
export class UnknownConnectionsError extends Error {
  override name = "UnknownConnectionsError";
  constructor(readonly connectionIds: string[]) {
    super(`unknown connection ids: ${connectionIds.join(", ")}`);
  }
}

export interface EnvironmentStore {
  /** Returns the single environment, creating it with `create()` on first run (race-safe). */
  getOrCreateEnvironment(create: () => EnvironmentRecord): Promise<EnvironmentRecord>;
  insertSecretKey(key: SecretKeyRecord): Promise<void>;
  listSecretKeys(environmentId: string): Promise<SecretKeyRecord[]>;
  /** Records that the key authenticated a request at `at` (nothing for an unknown key). */
  touchSecretKey(environmentId: string, id: string, at: number): Promise<void>;
  /** Marks a key revoked; returns it, or null when unknown. */
  revokeSecretKey(environmentId: string, id: string, at: number): Promise<SecretKeyRecord | null>;
}

export interface IntegrationStore {
  /** Throws DuplicateKeyError when the key is taken. */
  insertIntegration(integration: IntegrationRecord): Promise<void>;
  getIntegration(environmentId: string, uniqueKey: string): Promise<IntegrationRecord | null>;
  listIntegrations(environmentId: string): Promise<IntegrationRecord[]>;
  /**
   * Replaces the record stored under `uniqueKey` with `next` (whose uniqueKey may differ: a rename
   * moves its connections too, atomically). Throws DuplicateKeyError when renaming onto a taken key.
   * Returns false when `uniqueKey` is unknown. With a rename, `reseal` gives each moved connection's
   * credentials for its new row (they are bound to the integration key), written in the same change.
   */
  replaceIntegration(
    environmentId: string,
    uniqueKey: string,
    next: IntegrationRecord,
    reseal?: (moved: SealedCredentials) => string,
  ): Promise<boolean>;
  /** Sets importedEmailHashes on the integration (idempotent; nothing when unknown). */
  markImportedEmailHashes(environmentId: string, uniqueKey: string): Promise<void>;
  /** Deletes the integration and all its connections atomically; returns how many connections went. */
  deleteIntegration(environmentId: string, uniqueKey: string): Promise<number>;
}

export interface ConnectionStore {
  /**
   * Inserts a connection, or when (environment, integration, connectionId) exists, replaces its
   * credentials, connection_config (shallow-merged), endUser (when not null) and tags (when not empty)
   * while keeping id, metadata and createdAt.
   */
  upsertConnection(connection: ConnectionRecord): Promise<{ created: boolean; connection: ConnectionRecord }>;
  getConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<ConnectionRecord | null>;
  /**
   * Whether the connection exists, and its webhook URL override: one column read, not the whole row
   * (matching asks it for every connection of every notification).
   */
  connectionWebhookOverride(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<{ webhookUrlOverride: string | undefined } | null>;
  /** Newest first. */
  listConnections(
    environmentId: string,
    filter: ConnectionFilter,
  ): Promise<{ connections: ConnectionRecord[]; total: number }>;
  countConnections(environmentId: string, providerConfigKey: string): Promise<number>;
  deleteConnection(environmentId: string, providerConfigKey: string, connectionId: string): Promise<boolean>;
  /** Patches internal fields; returns the new record or null when unknown. */
  patchConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
    patch: ConnectionPatch,
    at: number,
  ): Promise<ConnectionRecord | null>;
  /**
   * Sets (replace) or updates (shallow merge) metadata on every listed connection, all or nothing:
   * throws UnknownConnectionsError naming every missing id and writes nothing. Returns the records in
   * request order.
   */
  writeMetadata(
    environmentId: string,
    providerConfigKey: string,
    connectionIds: string[],
    metadata: Record<string, unknown>,
    mode: MetadataMode,
    at: number,
  ): Promise<ConnectionRecord[]>;

  // Matching lookups (spec: Webhook-to-connection matching). Each is served by an index scoped to
  // the integration; none may scan connections. They return connection ids, sorted.

  /** Rule 1: connections whose `watch_uris` match key (the metadata arrays WATCH_URI_KEYS names) holds exactly `uri`. */
  findByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<string[]>;
  /** Rule 2, tier 1: connection_config.emailAddressHash equal to `hash`. */
  findByEmailHash(environmentId: string, providerConfigKey: string, hash: string): Promise<string[]>;
  /** Rule 2, tier 2: metadata.emailAddress equal to `email` after trim + lower-case on both sides. */
  findByMetadataEmailAddress(environmentId: string, providerConfigKey: string, email: string): Promise<string[]>;
  /** Rule 2, tier 3: metadata.email, compared like emailAddress. */
  findByMetadataEmail(environmentId: string, providerConfigKey: string, email: string): Promise<string[]>;
  /**
   * Rule 2 whole: the first tier that matches `email` (trimmed and lower-cased) — emailAddressHash
   * equal to emailAddressHash(email), or also to nangoEmailAddressHash(email) with `nangoEmailHashes`
   * (an integration with imported connections, see IntegrationRecord.importedEmailHashes), then metadata.emailAddress, then metadata.email — with every
   * connection it matches in that tier, sorted. null when no tier matches.
   */
  findByEmail(
    environmentId: string,
    providerConfigKey: string,
    email: string,
    options?: EmailLookup,
  ): Promise<EmailMatch | null>;
  /**
   * Rule 1 as findByWatchUri, with the matched connections' webhook URL overrides read in the same
   * lookup; a store may also answer the integration's forwarding facts with a match (see WatchUriMatch).
   */
  matchByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<WatchUriMatch>;
  /** Rule 2 as findByEmail, with the matched connections' webhook URL overrides read in the same lookup. */
  matchByEmail(
    environmentId: string,
    providerConfigKey: string,
    email: string,
    options?: EmailLookup,
  ): Promise<EmailConnectionMatch | null>;
}

/** How findByEmail looks up: also Nango's emailAddressHash formula when `nangoEmailHashes`. */
export interface EmailLookup {
  nangoEmailHashes?: boolean;
}

/** A tier of rule 2, named after the field it compares. */
export type EmailTier = "emailAddressHash" | "metadataEmailAddress" | "metadataEmail";

/** What findByEmail found: the deciding tier and its connections. */
export interface EmailMatch {
  tier: EmailTier;
  connectionIds: string[];
}

/**
 * The connections a matching lookup found, sorted, and the webhook URL override of each that has one:
 * forwarding needs the override of every matched connection, so the lookup reads it with the match.
 */
export interface ConnectionMatch {
  connectionIds: string[];
  webhookUrlOverrides: Record<string, string>;
}

/** What a forward needs of the integration besides its connections. */
export interface MatchedIntegration {
  provider: string;
  forwardWebhooks: boolean;
}

/**
 * What matchByWatchUri found. `integration`, when given, was read in the same lookup as the
 * connections, as it is at that moment (SQLite reads it in the lookup statement; MongoDB does not
 * give it); it is given only with at least one connection, which exists only while its integration
 * does.
 */
export interface WatchUriMatch extends ConnectionMatch {
  integration?: MatchedIntegration;
}

/** What matchByEmail found: the deciding tier, its connections and their overrides. */
export interface EmailConnectionMatch extends ConnectionMatch {
  tier: EmailTier;
}

/** A ConnectionMatch from (connection id, override or '' / null / undefined for none) pairs in any order. */
export function connectionMatchOf(rows: Iterable<readonly [string, string | null | undefined]>): ConnectionMatch {
  const connectionIds: string[] = [];
  const webhookUrlOverrides: Record<string, string> = {};
  for (const [id, override] of rows) {
    connectionIds.push(id);
    if (override) webhookUrlOverrides[id] = override;
  }
  connectionIds.sort();
  return { connectionIds, webhookUrlOverrides };
}

/** The result of using a state at the callback. */
export interface ConsumedState {
  state: OAuthStateRecord;
  /** True when it had been used before: a replayed callback. */
  alreadyUsed: boolean;
}

/** Connect sessions, authorization states and leases (OAuth issue). */
export interface OAuthFlowStore {
  insertConnectSession(session: ConnectSessionRecord): Promise<void>;
  getConnectSessionByTokenHash(tokenHash: string): Promise<ConnectSessionRecord | null>;
  getConnectSession(id: string): Promise<ConnectSessionRecord | null>;
  insertOAuthState(state: OAuthStateRecord): Promise<void>;
  /**
   * Marks a state used at `at`, atomically: of any number of concurrent calls exactly one gets
   * alreadyUsed=false. Returns null when no such state is stored.
   */
  consumeOAuthState(stateHash: string, at: number): Promise<ConsumedState | null>;
  /**
   * Uses up, atomically, states that expired unused at or before `now` (at most `limit`), marking them
   * abandoned: however many processes sweep one store, each state is returned to one caller at most, and never
   * one a callback used first (a callback that comes after finds it used and abandoned).
   */
  claimAbandonedOAuthStates(now: number, limit: number): Promise<OAuthStateRecord[]>;
  /** Deletes connect sessions, states and leases that expired before `before`. */
  purgeOAuthFlow(before: number): Promise<void>;
  /**
   * Compare-and-set: takes the lease `key` for `holder` until `expiresAt` when nobody holds it, when
   * the current holder's lease expired (at or before `now`), or when `holder` already holds it.
   * Returns whether `holder` now holds it. A holder that dies is replaced once its lease expires.
   */
  acquireLease(key: string, holder: string, now: number, expiresAt: number): Promise<boolean>;
  /** Gives the lease up, only if `holder` still holds it. */
  releaseLease(key: string, holder: string): Promise<void>;
}

/** Everything the connection service stores. */
export interface ConnectionServiceStore
  extends EnvironmentStore,
    IntegrationStore,
    ConnectionStore,
    OAuthFlowStore,
    ProviderDefinitionStore {
  /** The sealed secrets, row by row, for `junction rekey`. */
  readonly secrets: SecretRewriteStore;
  close(): Promise<void>;
}

/** The normal form emails are compared in (spec: emails compare trimmed and case-insensitively). */
export function normalizeEmail(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim().toLowerCase() : null;
}

/**
 * The metadata keys whose string arrays list watch URIs (rule 1), as the provider adapters declare
 * them (the `watch_uris` match key): a connection may carry several (Junction's name and Nango's).
 */
export const WATCH_URI_KEYS: readonly string[] = matchKeyMetadata("watch_uris");

/** The watch URIs of a metadata object: the strings of its WATCH_URI_KEYS arrays, de-duplicated. */
export function watchUris(metadata: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const key of WATCH_URI_KEYS) {
    const v = metadata[key];
    if (Array.isArray(v)) for (const x of v) if (typeof x === "string") out.add(x);
  }
  return [...out];
}
