import { emailAddressHash } from "../email-hash.ts";
import type { ConnectionLookupKeys } from "./lookup-keys.ts";

/**
 * The matching keys of the SQLite store (spec: Webhook-to-connection matching): a row per
 * (connection, watch URI) in connection_watch_keys and per (connection, rule-2 tier) in
 * connection_email_keys, stored at a slot of the block that a hash of (group, environment,
 * integration, value) selects. A lookup is one search on the INTEGER PRIMARY KEY of one table:
 * interior pages hold only integers, so the tree stays 3 levels deep and its upper levels stay in
 * the CPU caches at 10⁶ connections (the text indexes this replaces were 4 to 5 levels over
 * 180 MB), and only the leaf is a random memory access. Every row of the block is checked against
 * the exact environment, integration, kind and value, so a hash collision costs a row read, never
 * a false match.
 */

/** What a match-key row says about its connection (the kind column). */
export const MatchKind = {
  /** The `watch_uris` match key holds the value (rule 1). */
  watchUri: 0,
  /** connection_config.emailAddressHash is the value (rule 2, tier 1). */
  emailAddressHash: 1,
  /** metadata.emailAddress, trimmed and lower-cased, is the value (rule 2, tier 2). */
  metadataEmailAddress: 2,
  /** metadata.email, trimmed and lower-cased, is the value (rule 2, tier 3). */
  metadataEmail: 3,
} as const;
export type MatchKind = (typeof MatchKind)[keyof typeof MatchKind];

/**
 * Slots per block: the connections sharing one key (fan-out) and the keys whose hashes collide
 * share a block. Blocks are 2^20 wide and hashes 33 bits, so that every slot is below 2^53 and
 * exact as a JavaScript number.
 */
export const BLOCK_SIZE = 2 ** 20;

/** Maps a key's text to its block, an integer in [0, 2^33). Injectable for tests (collisions). */
export type BlockHash = (text: string) => number;

const digest = new Uint8Array(32);
const digestView = new DataView(digest.buffer);

/** The first 33 bits of the SHA-256 of the text (UTF-8). Never change: the blocks are stored. */
export function sha256Block(text: string): number {
  Bun.SHA256.hash(text, digest);
  return digestView.getUint32(0) * 2 + (digestView.getUint8(4) >>> 7);
}

/** One key of a connection: its kind, its exact stored value, and the first slot of its block. */
export interface MatchKey {
  kind: MatchKind;
  value: string;
  first: number;
}

/**
 * The text hashed for a key. Rule 2's three tiers hash the same text for one email (the email's
 * emailAddressHash), so that a notification's three rule-2 lookups are one search of one block.
 */
function keyText(environmentId: string, providerConfigKey: string, kind: MatchKind, value: string): string {
  const group = kind === MatchKind.watchUri ? "uri" : "email";
  const hashed =
    kind === MatchKind.metadataEmailAddress || kind === MatchKind.metadataEmail ? emailAddressHash(value) : value;
  return `${group}\u0000${environmentId}\u0000${providerConfigKey}\u0000${hashed}`;
}

/** The first slot of the block of a key. */
export function blockOf(
  hash: BlockHash,
  environmentId: string,
  providerConfigKey: string,
  kind: MatchKind,
  value: string,
): number {
  return hash(keyText(environmentId, providerConfigKey, kind, value)) * BLOCK_SIZE;
}

/** The first slot of the block of rule 2's three tiers for an email, given its emailAddressHash. */
export function emailBlockOf(
  hash: BlockHash,
  environmentId: string,
  providerConfigKey: string,
  hashOfEmail: string,
): number {
  return hash(keyText(environmentId, providerConfigKey, MatchKind.emailAddressHash, hashOfEmail)) * BLOCK_SIZE;
}

/** The match keys of a connection, from its lookup keys. */
export function matchKeysOf(
  hash: BlockHash,
  environmentId: string,
  providerConfigKey: string,
  keys: ConnectionLookupKeys,
): MatchKey[] {
  const out: MatchKey[] = [];
  const add = (kind: MatchKind, value: string | null) => {
    if (value !== null) out.push({ kind, value, first: blockOf(hash, environmentId, providerConfigKey, kind, value) });
  };
  for (const uri of keys.watchUris) add(MatchKind.watchUri, uri);
  add(MatchKind.emailAddressHash, keys.emailAddressHash);
  add(MatchKind.metadataEmailAddress, keys.metadataEmailAddress);
  add(MatchKind.metadataEmail, keys.metadataEmail);
  return out;
}
