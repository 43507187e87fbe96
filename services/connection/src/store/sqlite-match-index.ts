import type { Database } from "bun:sqlite";
import { emailAddressHash, nangoEmailAddressHash } from "../email-hash.ts";
import { connectionLookupKeys } from "./lookup-keys.ts";
import type { ConnectionRecord } from "./records.ts";
import {
  BLOCK_SIZE,
  type BlockHash,
  blockOf,
  emailBlockOf,
  MatchKind,
  type MatchKey,
  matchKeysOf,
} from "./sqlite-match-keys.ts";
import type { KeyedConnectionRow, Params, Statements } from "./sqlite-statements.ts";
import {
  connectionMatchOf,
  type EmailConnectionMatch,
  type EmailLookup,
  type EmailTier,
  normalizeEmail,
  type WatchUriMatch,
} from "./store.ts";

/** What a connection's match keys derive from. */
export type Keyed = Pick<
  ConnectionRecord,
  "environmentId" | "providerConfigKey" | "connectionId" | "connectionConfig" | "metadata"
>;

/** A kind of rule-2 key. */
type EmailKind = Exclude<MatchKind, typeof MatchKind.watchUri>;

/** The rule-2 tier of each kind of connection_email_keys. */
const TIERS: Record<number, EmailTier> = {
  [MatchKind.emailAddressHash]: "emailAddressHash",
  [MatchKind.metadataEmailAddress]: "metadataEmailAddress",
  [MatchKind.metadataEmail]: "metadataEmail",
};

/**
 * The SQLite connection store's match keys (spec: Webhook-to-connection matching): connection_watch_keys
 * and connection_email_keys (sqlite-match-keys.ts), each lookup one search of one block. The store
 * calls the upkeep methods in the transaction of every write that changes what the keys derive from:
 * metadata, connection_config, the integration's key.
 */
export class SqliteMatchIndex {
  constructor(
    private readonly db: Database,
    private readonly q: Statements,
    private readonly blockHash: BlockHash,
  ) {}

  /** Rule 2: the connections of the lowest tier that knows `email`, with their overrides. */
  matchByEmail(envId: string, key: string, email: string, options: EmailLookup = {}): EmailConnectionMatch | null {
    const value = normalizeEmail(email);
    if (value === null) return null;
    // The three tiers of an email share one block: one search finds them all; the lowest kind decides.
    const hash = emailAddressHash(value);
    const first = emailBlockOf(this.blockHash, envId, key, hash);
    const params: Params = {
      first,
      last: first + BLOCK_SIZE - 1,
      hash,
      email: value,
      environment_id: envId,
      provider_config_key: key,
    };
    let rows: [number, string, string][];
    if (options.nangoEmailHashes) {
      // A hash imported from Nango, under its own formula, is in its own block.
      const nangoHash = nangoEmailAddressHash(value);
      const nangoFirst = emailBlockOf(this.blockHash, envId, key, nangoHash);
      rows = this.q.lookupEmailWithNango.values({
        ...params,
        nango_first: nangoFirst,
        nango_last: nangoFirst + BLOCK_SIZE - 1,
        nango_hash: nangoHash,
      }) as [number, string, string][];
    } else rows = this.q.lookupEmail.values(params) as [number, string, string][];
    if (rows.length === 0) return null;
    let kind = rows[0]?.[0] as number;
    for (const row of rows) if (row[0] < kind) kind = row[0];
    const matched: [string, string][] = [];
    for (const row of rows) if (row[0] === kind) matched.push([row[1], row[2]]);
    return { tier: TIERS[kind] as EmailTier, ...connectionMatchOf(matched) };
  }

  /** Rule 1: the connections listing the watch URI `uri`, with their overrides and their integration. */
  matchByWatchUri(environmentId: string, providerConfigKey: string, uri: string): WatchUriMatch {
    const params = this.lookupParams(MatchKind.watchUri, environmentId, providerConfigKey, uri);
    const rows = this.q.lookupWatchUri.values(params) as [string, string, string | null, number | null][];
    const match = connectionMatchOf(rows.map((row) => [row[0], row[1]] as const));
    // Every row names the same integration.
    const [, , provider, forward] = rows[0] ?? [];
    return provider ? { ...match, integration: { provider, forwardWebhooks: forward !== 0 } } : match;
  }

  /** The connections with the rule-2 key `value` of `kind`, sorted. */
  findEmailKind(kind: EmailKind, environmentId: string, providerConfigKey: string, value: string): string[] {
    const params = this.lookupParams(kind, environmentId, providerConfigKey, value);
    const ids: string[] = [];
    for (const row of this.q.lookupEmailKind.values({ ...params, kind }) as [string][]) ids.push(row[0]);
    return ids.sort();
  }

  private lookupParams(kind: MatchKind, environmentId: string, providerConfigKey: string, value: string): Params {
    const first = blockOf(this.blockHash, environmentId, providerConfigKey, kind, value);
    return {
      first,
      last: first + BLOCK_SIZE - 1,
      value,
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
    };
  }

  private keysOf(c: Keyed): MatchKey[] {
    return matchKeysOf(
      this.blockHash,
      c.environmentId,
      c.providerConfigKey,
      connectionLookupKeys({ connectionConfig: c.connectionConfig, metadata: c.metadata, endUser: null }),
    );
  }

  /** Stores every key of `c`. */
  addAll(c: Keyed): void {
    this.add(c, this.keysOf(c));
  }

  /** Removes every key of `c`. */
  removeAll(c: Keyed): void {
    this.remove(c, this.keysOf(c));
  }

  /** Stores `keys` of `c`, each at the first free slot of its block. */
  private add(c: Keyed, keys: readonly MatchKey[]): void {
    for (const key of keys) {
      const watch = key.kind === MatchKind.watchUri;
      const insert = (slot: number) => {
        const row = {
          slot,
          environment_id: c.environmentId,
          provider_config_key: c.providerConfigKey,
          value: key.value,
          connection_id: c.connectionId,
        };
        const { changes } = watch
          ? this.q.watchKeyInsert.run(row)
          : this.q.emailKeyInsert.run({ ...row, kind: key.kind });
        return changes === 1;
      };
      // Most blocks hold one row: try the first slot, and only when it is taken look for a free one.
      if (insert(key.first)) continue;
      const last = key.first + BLOCK_SIZE - 1;
      const taken = (watch ? this.q.watchKeySlots : this.q.emailKeySlots).values({ first: key.first, last }) as [
        number,
      ][];
      let slot = key.first;
      for (const [s] of taken) {
        if (s !== slot) break;
        slot++;
      }
      if (slot > last || !insert(slot)) throw new Error(`no free slot for a lookup key in block ${key.first}`);
    }
  }

  private remove(c: Keyed, keys: readonly MatchKey[]): void {
    for (const key of keys) {
      const row = {
        first: key.first,
        last: key.first + BLOCK_SIZE - 1,
        value: key.value,
        connection_id: c.connectionId,
        environment_id: c.environmentId,
        provider_config_key: c.providerConfigKey,
      };
      if (key.kind === MatchKind.watchUri) this.q.watchKeyDelete.run(row);
      else this.q.emailKeyDelete.run({ ...row, kind: key.kind });
    }
  }

  /** Replaces the keys of `before` by those of `after` (the same connection), touching only the changed ones. */
  rewrite(before: Keyed, after: Keyed): void {
    const old = this.keysOf(before);
    const next = this.keysOf(after);
    const id = (k: MatchKey) => `${k.kind}:${k.value}`;
    const oldIds = new Set(old.map(id));
    const nextIds = new Set(next.map(id));
    this.remove(
      before,
      old.filter((k) => !nextIds.has(id(k))),
    );
    this.add(
      after,
      next.filter((k) => !oldIds.has(id(k))),
    );
  }

  /** The connections of an integration, as far as their match keys go. */
  keyedConnections(environmentId: string, providerConfigKey: string): Keyed[] {
    return this.q.connectionsKeyed
      .all({ environment_id: environmentId, provider_config_key: providerConfigKey })
      .map(keyedFromRow);
  }

  /**
   * Fills the match-key tables from the existing connections once, after the migration that made
   * it (its hashes cannot be computed in SQL), in one transaction; another process that raced here
   * finds the work done.
   */
  backfill(write: <T>(fn: () => T) => T): void {
    const pending = () =>
      this.db
        .query<{ n: number }, []>(
          "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'connection_match_keys_backfill'",
        )
        .get()?.n === 1;
    if (!pending()) return;
    write(() => {
      if (!pending()) return;
      for (const row of this.q.connectionsKeyedAll.iterate({})) {
        const c = keyedFromRow(row);
        this.addAll(c);
      }
      this.db.exec("DROP TABLE connection_match_keys_backfill");
    });
  }
}

function keyedFromRow(r: KeyedConnectionRow): Keyed {
  return {
    environmentId: r.environment_id,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    connectionConfig: JSON.parse(r.connection_config) as Record<string, unknown>,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  };
}
