import type { Database } from "bun:sqlite";

/** How a batch is made atomic: SQLite's transaction, on the store's connection. */
export interface Transactor {
  /** Runs `fn` as one transaction (a savepoint inside an open one); commits unless it throws. */
  atomically(fn: () => void): void;
  /** Whether the transaction is still open: some errors (disk full, I/O) make SQLite roll it all back. */
  inTransaction(): boolean;
}

interface PendingWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes asked for during one turn of the event loop run together in one transaction
 * at the end of the turn, and each caller's promise settles only once that transaction committed.
 * A durable write costs one commit per batch instead of one per write, and nothing resolves before
 * it is on disk. Each write runs in order and gets its own result or error, as if it ran alone; a
 * failed commit fails every write of the batch.
 */
export class GroupCommit {
  private static readonly byDatabase = new WeakMap<Database, GroupCommit>();

  /**
   * The group commit of a SQLite connection, shared by every store on it (the embedded default keeps
   * the bus and the services in one file): a turn's writes, whoever asked, make one transaction.
   */
  static forDatabase(db: Database): GroupCommit {
    let found = GroupCommit.byDatabase.get(db);
    if (!found) {
      // One transaction function for every batch: making one per batch costs more than the batch's BEGIN.
      const atomically = db.transaction((fn: () => void) => fn());
      found = new GroupCommit({ atomically: (fn) => atomically(fn), inTransaction: () => db.inTransaction });
      GroupCommit.byDatabase.set(db, found);
    }
    return found;
  }

  private pending: PendingWrite[] = [];
  private scheduled: ReturnType<typeof setImmediate> | undefined;

  /** `tx` undefined: nothing to commit (the in-memory store), writes run at once. */
  constructor(private readonly tx: Transactor | undefined) {}

  /**
   * Runs `write` in the next batch; resolves with its result once the batch is committed. A write
   * that throws is rejected alone, so it must leave nothing half done: one statement, or its own
   * `db.transaction` (a savepoint inside the batch).
   */
  add<T>(write: () => T): Promise<T> {
    if (!this.tx) {
      try {
        return Promise.resolve(write());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    this.pending.push({ run: write, resolve: resolve as (value: unknown) => void, reject });
    this.scheduled ??= setImmediate(() => this.flush());
    return promise;
  }

  /** Commits what is pending now (also called on close, so that nothing waits for a turn that never comes). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.pending;
    const tx = this.tx;
    if (batch.length === 0 || !tx) return;
    this.pending = [];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      tx.atomically(() => {
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: write.run() });
          } catch (err) {
            // Rolled back whole: the later writes must not run outside it, and none of the batch stands.
            if (!tx.inTransaction()) throw err;
            outcomes.push({ ok: false, value: err });
          }
        }
      });
    } catch (err) {
      for (const write of batch) write.reject(err);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.value);
    });
  }
}
