import type { RecordScope, RecordStore } from "./record-store.ts";

const keyOf = (s: RecordScope) =>
  JSON.stringify([s.environmentId, s.providerConfigKey, s.connectionId, s.model, s.variant]);

/**
 * This process's record writes, per partition: wakes the change feeds that follow a partition as soon
 * as a write commits. Writes of other processes are not seen here; the feeds poll the store for them.
 */
export class RecordChanges {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `fn` after each write to the partition; returns the function that stops it. */
  listen(scope: RecordScope, fn: () => void): () => void {
    const key = keyOf(scope);
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  /** A write to the partition committed. */
  written(scope: RecordScope): void {
    const set = this.listeners.get(keyOf(scope));
    if (set) for (const fn of [...set]) fn();
  }

  /** A connection's partitions were removed (all models): every feed of the connection is woken. */
  cleared(connection: Omit<RecordScope, "model" | "variant">): void {
    const prefix = JSON.stringify([connection.environmentId, connection.providerConfigKey, connection.connectionId]);
    const head = prefix.slice(0, -1);
    for (const [key, set] of [...this.listeners]) if (key.startsWith(`${head},`)) for (const fn of [...set]) fn();
  }

  /** Listeners registered (feeds open in this process). */
  size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}

/** The store with every committed write signalled to `changes` (the writes and reads are the store's). */
export function signallingStore(store: RecordStore, changes: RecordChanges): RecordStore {
  const after = async <T>(scope: RecordScope, write: Promise<T>): Promise<T> => {
    const result = await write;
    changes.written(scope);
    return result;
  };
  return {
    retention: store.retention,
    save: (scope, records, options) => after(scope, store.save(scope, records, options)),
    update: (scope, ids, build, options) => after(scope, store.update(scope, ids, build, options)),
    delete: (scope, ids, now) => after(scope, store.delete(scope, ids, now)),
    endDeleteTracking: (scope, mark, now, maxIds) => after(scope, store.endDeleteTracking(scope, mark, now, maxIds)),
    prune: (scope, untilSeq, limit, now) => after(scope, store.prune(scope, untilSeq, limit, now)),
    clear: async (scope, which) => {
      const removed = await store.clear(scope, which);
      changes.cleared(scope);
      return removed;
    },
    forgetConnection: async (scope) => {
      const removed = await store.forgetConnection(scope);
      changes.cleared(scope);
      return removed;
    },
    getByIds: (scope, ids) => store.getByIds(scope, ids),
    list: (scope, query) => store.list(scope, query),
    secret: (scope) => store.secret(scope),
    beginDeleteTracking: (scope, continuing) => store.beginDeleteTracking(scope, continuing),
    models: (scope) => store.models(scope),
    getCheckpoint: (key) => store.getCheckpoint(key),
    saveCheckpoint: (key, checkpoint, now) => store.saveCheckpoint(key, checkpoint, now),
    clearCheckpoint: (key) => store.clearCheckpoint(key),
    close: () => store.close(),
  };
}
