import type { Document, Filter, UpdateFilter } from "mongodb";
import { endUserIdOf } from "./lookup-keys.ts";
import type {
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  MetadataMode,
  SecretKeyRecord,
} from "./records.ts";
import { normalizeEmail, WATCH_URI_KEYS, watchUris } from "./store.ts";

// Document shapes of the MongoDB collections and the pure functions that build them, the queries
// and the updates. Kept apart from the store so that they are tested without a server.

export interface EnvironmentDocument {
  _id: string;
  name: string;
  createdAt: number;
  /** Always true; its unique index is what lets only one environment exist. */
  singleton: true;
}

export interface SecretKeyDocument extends Omit<SecretKeyRecord, "id"> {
  _id: string;
}

/** An integration as stored (under a server-generated _id, so that a rename can keep it). */
export type IntegrationDocument = IntegrationRecord;

/**
 * Shadow fields derived from the metadata on every write: the emails normalized, so that an index
 * serves case-insensitive lookups, and the `watch_uris` match key (the strings of every metadata
 * array a provider declares as watch URIs), one multikey index whatever the keys are called.
 */
export interface LookupFields {
  emailAddress: string | null;
  email: string | null;
  watchUris: string[];
}

export interface ConnectionDocument {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
  provider: string;
  credentialsEnc: string | null;
  credentialsExpiresAt: number | null;
  connection_config: Record<string, unknown>;
  metadata: Record<string, unknown>;
  endUser: Record<string, unknown> | null;
  endUserId: string | null;
  errors: ConnectionRecord["errors"];
  /**
   * The tags as "key=value" strings (keys hold no "="): a multikey index serves tag filters, and tag
   * keys with dots never become field names.
   */
  tagPairs: string[];
  /** Absent when none (and on documents written before it existed). */
  webhookUrlOverride?: string;
  createdAt: number;
  updatedAt: number;
  lookup: LookupFields;
}

export const environmentToDocument = (e: EnvironmentRecord): EnvironmentDocument => ({
  _id: e.id,
  name: e.name,
  createdAt: e.createdAt,
  singleton: true,
});

export const environmentFromDocument = (d: EnvironmentDocument): EnvironmentRecord => ({
  id: d._id,
  name: d.name,
  createdAt: d.createdAt,
});

export const secretKeyToDocument = ({ id, ...rest }: SecretKeyRecord): SecretKeyDocument => ({ _id: id, ...rest });

export const secretKeyFromDocument = (d: SecretKeyDocument): SecretKeyRecord => ({
  id: d._id,
  environmentId: d.environmentId,
  name: d.name,
  prefix: d.prefix,
  hash: d.hash,
  createdAt: d.createdAt,
  revokedAt: d.revokedAt,
  // Keys stored before scopes existed have none: full access.
  scopes: d.scopes ?? [],
  lastUsedAt: d.lastUsedAt ?? null,
});

/** An integration document without its _id (and anything else not in the record). */
export const integrationFromDocument = (d: IntegrationDocument): IntegrationRecord => ({
  environmentId: d.environmentId,
  uniqueKey: d.uniqueKey,
  provider: d.provider,
  displayName: d.displayName,
  clientId: d.clientId,
  clientSecretEnc: d.clientSecretEnc,
  scopes: d.scopes,
  overrides: d.overrides,
  forwardWebhooks: d.forwardWebhooks,
  // Absent on documents written before test mode existed.
  useTestCredentials: d.useTestCredentials ?? false,
  // Both absent on documents written before provider settings existed.
  providerSettings: d.providerSettings ?? {},
  managedChannels: d.managedChannels ?? false,
  // Absent when never set (managedChannels decides).
  ...(typeof d.strictChannels === "boolean" ? { strictChannels: d.strictChannels } : {}),
  ...(d.importedEmailHashes ? { importedEmailHashes: true as const } : {}),
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** Integration documents hold exactly the record's fields (plus _id), so building one is the same copy. */
export const integrationToDocument: (i: IntegrationRecord) => IntegrationDocument = integrationFromDocument;

/** The shadow fields of a metadata object (spec: Webhook-to-connection matching, rules 1 and 2). */
export function lookupFields(metadata: Record<string, unknown>): LookupFields {
  return {
    emailAddress: normalizeEmail(metadata.emailAddress),
    email: normalizeEmail(metadata.email),
    watchUris: watchUris(metadata),
  };
}

/**
 * `lookup.watchUris` computed by the server from the document's metadata (an aggregation
 * expression): for a merge, whose result only the server sees, and for documents written before the
 * field existed (the store's migration on start).
 */
export function watchUrisExpression(): Document {
  return {
    $setUnion: WATCH_URI_KEYS.map((key) => ({
      $filter: {
        input: { $cond: [{ $isArray: `$metadata.${key}` }, `$metadata.${key}`, []] },
        cond: { $eq: [{ $type: "$$this" }, "string"] },
      },
    })),
  };
}

export function connectionToDocument(c: ConnectionRecord): ConnectionDocument {
  return {
    _id: c.id,
    environmentId: c.environmentId,
    providerConfigKey: c.providerConfigKey,
    connectionId: c.connectionId,
    provider: c.provider,
    credentialsEnc: c.credentialsEnc,
    credentialsExpiresAt: c.credentialsExpiresAt,
    connection_config: c.connectionConfig,
    metadata: c.metadata,
    endUser: c.endUser,
    endUserId: endUserIdOf(c.endUser),
    errors: c.errors,
    tagPairs: tagPairs(c.tags),
    ...(c.webhookUrlOverride ? { webhookUrlOverride: c.webhookUrlOverride } : {}),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    lookup: lookupFields(c.metadata),
  };
}

export function connectionFromDocument(d: ConnectionDocument): ConnectionRecord {
  return {
    id: d._id,
    environmentId: d.environmentId,
    providerConfigKey: d.providerConfigKey,
    connectionId: d.connectionId,
    provider: d.provider,
    credentialsEnc: d.credentialsEnc ?? null,
    credentialsExpiresAt: d.credentialsExpiresAt ?? null,
    connectionConfig: d.connection_config ?? {},
    metadata: d.metadata ?? {},
    endUser: d.endUser ?? null,
    errors: d.errors ?? [],
    // Absent on documents written before tags existed.
    tags: tagsOf(d.tagPairs ?? []),
    ...(d.webhookUrlOverride ? { webhookUrlOverride: d.webhookUrlOverride } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** Rule 1's query: the `watch_uris` match key holds `uri` (the multikey index by_watch_uris). */
export function watchUriQuery(
  environmentId: string,
  providerConfigKey: string,
  uri: string,
): Filter<ConnectionDocument> {
  return { environmentId, providerConfigKey, "lookup.watchUris": uri };
}

/** Rule 2, tier 1's query: connection_config.emailAddressHash equal to one of `hashes` (one index). */
export function emailHashQuery(
  environmentId: string,
  providerConfigKey: string,
  hashes: string[],
): Filter<ConnectionDocument> {
  const value = hashes.length === 1 ? hashes[0] : { $in: hashes };
  return { environmentId, providerConfigKey, "connection_config.emailAddressHash": value };
}

/** The "key=value" form of tags (tag keys never hold "="). */
export function tagPairs(tags: Record<string, string>): string[] {
  return Object.entries(tags).map(([k, v]) => `${k}=${v}`);
}

/** The tags of their "key=value" form. */
function tagsOf(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** Escapes `text` so that it matches itself, literally, inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** The query of a connection listing. Empty strings count as absent, as proto3 sends unset strings. */
export function connectionListQuery(environmentId: string, filter: ConnectionFilter): Filter<ConnectionDocument> {
  const query: Filter<ConnectionDocument> = { environmentId };
  if (filter.providerConfigKey) query.providerConfigKey = filter.providerConfigKey;
  // Several integrations: with providerConfigKey, both apply.
  if (filter.providerConfigKeys?.length) query.$and = [{ providerConfigKey: { $in: filter.providerConfigKeys } }];
  if (filter.endUserId) query.endUserId = filter.endUserId;
  const profile = query as Document;
  if (filter.endUserEmail) profile["endUser.email"] = filter.endUserEmail;
  if (filter.endUserDisplayName) profile["endUser.display_name"] = filter.endUserDisplayName;
  if (filter.endUserOrganizationId) profile["endUser.organization.id"] = filter.endUserOrganizationId;
  const tags = tagPairs(filter.tags ?? {});
  if (tags.length > 0) query.tagPairs = { $all: tags };
  const connectionId: Document = {};
  if (filter.connectionId) connectionId.$eq = filter.connectionId;
  if (filter.search) {
    connectionId.$regex = escapeRegExp(filter.search);
    connectionId.$options = "i";
  }
  if (Object.keys(connectionId).length > 0) query.connectionId = connectionId;
  return query;
}

/**
 * The update of a re-authorization (see ConnectionStore.upsertConnection): an aggregation pipeline,
 * so that connection_config is merged by the server in the same atomic write. Values go in as
 * $literal so that strings starting with "$" are not read as field paths.
 */
export function reauthorizationUpdate(c: ConnectionRecord): Document[] {
  const set: Document = {
    credentialsEnc: { $literal: c.credentialsEnc },
    credentialsExpiresAt: { $literal: c.credentialsExpiresAt },
    connection_config: { $mergeObjects: ["$connection_config", { $literal: c.connectionConfig }] },
    updatedAt: { $literal: c.updatedAt },
  };
  if (c.endUser !== null) {
    set.endUser = { $literal: c.endUser };
    set.endUserId = { $literal: endUserIdOf(c.endUser) };
  }
  if (Object.keys(c.tags).length > 0) set.tagPairs = { $literal: tagPairs(c.tags) };
  if (c.webhookUrlOverride) set.webhookUrlOverride = { $literal: c.webhookUrlOverride };
  return [{ $set: set }];
}

/**
 * The update of a metadata write. "set" replaces the metadata and its shadow fields; "update" merges
 * on the server (one atomic write per document) and rewrites only the shadow fields whose source
 * key the patch holds.
 */
export function metadataUpdate(
  metadata: Record<string, unknown>,
  mode: MetadataMode,
  at: number,
): UpdateFilter<ConnectionDocument> | Document[] {
  if (mode === "set") return { $set: { metadata, lookup: lookupFields(metadata), updatedAt: at } };
  const set: Document = {
    metadata: { $mergeObjects: ["$metadata", { $literal: metadata }] },
    updatedAt: { $literal: at },
  };
  const lookup = lookupFields(metadata);
  if (Object.hasOwn(metadata, "emailAddress")) set["lookup.emailAddress"] = { $literal: lookup.emailAddress };
  if (Object.hasOwn(metadata, "email")) set["lookup.email"] = { $literal: lookup.email };
  // The merged arrays are known only after the first stage.
  if (WATCH_URI_KEYS.some((key) => Object.hasOwn(metadata, key))) {
    return [{ $set: set }, { $set: { "lookup.watchUris": watchUrisExpression() } }];
  }
  return [{ $set: set }];
}

/** The $set of a patch: only the fields it holds, and the derived endUserId with endUser. */
export function patchUpdate(patch: ConnectionPatch, at: number): UpdateFilter<ConnectionDocument> {
  const set: Partial<ConnectionDocument> = { updatedAt: at };
  if (patch.credentialsEnc !== undefined) set.credentialsEnc = patch.credentialsEnc;
  if (patch.credentialsExpiresAt !== undefined) set.credentialsExpiresAt = patch.credentialsExpiresAt;
  if (patch.connectionConfig !== undefined) set.connection_config = patch.connectionConfig;
  if (patch.errors !== undefined) set.errors = patch.errors;
  if (patch.endUser !== undefined) {
    set.endUser = patch.endUser;
    set.endUserId = endUserIdOf(patch.endUser);
  }
  if (patch.tags !== undefined) set.tagPairs = tagPairs(patch.tags);
  if (typeof patch.webhookUrlOverride === "string") set.webhookUrlOverride = patch.webhookUrlOverride;
  if (patch.webhookUrlOverride === null) return { $set: set, $unset: { webhookUrlOverride: "" } };
  return { $set: set };
}
