import type { Database } from "bun:sqlite";
import { migrate } from "@junction/platform/sqlite";
import type { OperationStore } from "./operation-store.ts";
import { COLUMNS, fromRow, LOGS_MIGRATIONS, type OperationRow } from "./sqlite-operation-store.ts";

export interface LegacyMoveOptions {
  /** Operations per transaction in the log's file. */
  chunk?: number;
  /** Called after each chunk is committed (tests stop the move there, as a crash would). */
  afterChunk?: (copied: number) => void;
}

/** Whether `db` holds an operations log (the embedded default kept it in its one file before the log had its own). */
export function hasOperationsLog(db: Database): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'operations'").get() !== null;
}

/**
 * Moves the operations kept in `from` (the embedded default's `junction.sqlite`) into `to` (the log's own file),
 * then drops them from `from`. Each chunk is copied in one transaction of `to`, and an id `to` has already is
 * skipped (`insert` keeps a batch carried twice once); the tables go from `from` in one transaction of their own,
 * after every chunk is in. A crash before the drop leaves `from` whole and the next start copies again only what
 * is missing; a crash during it rolls it back. Nothing is lost and nothing is kept twice. Answers how many
 * operations were read from `from`.
 */
export async function moveLegacyOperations(
  from: Database,
  to: OperationStore,
  options: LegacyMoveOptions = {},
): Promise<number> {
  if (!hasOperationsLog(from)) return 0;
  // An older release's log gets this release's columns first (the same migrations, recorded in that file).
  migrate(from, "logs", LOGS_MIGRATIONS);
  const chunk = options.chunk ?? 1_000;
  const read = from.query<OperationRow & { seq: number }, [number, number]>(
    `SELECT seq, ${COLUMNS} FROM operations WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  let after = 0;
  let copied = 0;
  for (;;) {
    const rows = read.all(after, chunk);
    if (rows.length === 0) break;
    await to.insert(rows.map(fromRow));
    copied += rows.length;
    after = (rows.at(-1) as { seq: number }).seq;
    options.afterChunk?.(copied);
  }
  from.transaction(() => {
    from.exec("DROP TABLE operations_fts");
    from.exec("DROP TABLE operation_tags");
    from.exec("DROP TABLE operations");
    from.query("DELETE FROM schema_migrations WHERE component = 'logs'").run();
  })();
  return copied;
}
