import type { Collection } from "mongodb";
import { type ConnectionDocument, watchUrisExpression } from "./mongo-documents.ts";

/** MongoDB's error code for a collection that does not exist. */
const NAMESPACE_NOT_FOUND = 26;

/** The indexes `by_watch_uris` replaces: one per metadata key, named after the keys. */
const REPLACED_INDEXES = ["by_watch_uri", "by_google_watch_uri"];

/**
 * Connection documents written before `lookup.watchUris` existed get it from their metadata (the
 * server computes it, as a merge does), and the per-key indexes it replaces go. Idempotent: run on
 * every start, before the indexes are created.
 */
export async function migrateWatchUris(connections: Collection<ConnectionDocument>): Promise<void> {
  await connections.updateMany({ "lookup.watchUris": { $exists: false } }, [
    { $set: { "lookup.watchUris": watchUrisExpression() } },
  ]);
  const indexes = await connections
    .listIndexes()
    .toArray()
    .catch((err: { code?: number }) => {
      // A new database: no collection yet (NamespaceNotFound), nothing to drop.
      if (err?.code === NAMESPACE_NOT_FOUND) return [];
      throw err;
    });
  const existing = new Set(indexes.map((index) => String(index.name)));
  for (const name of REPLACED_INDEXES) if (existing.has(name)) await connections.dropIndex(name);
}
