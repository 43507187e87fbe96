import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, type Logger, type MetricsRegistry, openDatabase } from "@junction/platform";
import { moveLegacyOperations } from "./store/legacy-operations.ts";
import type { OperationStore } from "./store/operation-store.ts";
import { SqliteOperationStore } from "./store/sqlite-operation-store.ts";
import { ThreadedOperationStore } from "./store/threaded-operation-store.ts";

/** The log's own SQLite file in the data dir (the embedded default's and the distributed logs service's). */
export const LOGS_SQLITE_FILE = "logs.sqlite";

/** Opens the store the config asks for: a SQLite file (given, or `logs.sqlite` in the data dir) or MongoDB. */
export async function openOperationStore(cfg: CommonConfig, db?: Database): Promise<OperationStore> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the driver is most of the heap of a process that imports it.
    const { MongoOperationStore } = await import("./store/mongo-operation-store.ts");
    return MongoOperationStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  return new SqliteOperationStore(
    db ?? openDatabase(join(cfg.dataDir, LOGS_SQLITE_FILE), { cacheMb: cfg.sqliteCacheMb }),
  );
}

/**
 * The embedded default's store. With SQLite: `logs.sqlite` in the data dir, written on a thread of its own
 * (ThreadedOperationStore; `writerThread: false` writes it on this one), so the log's writes take neither the
 * main thread's time nor the one file's write lock; the operations an older release kept in the one file
 * (`legacy`) are moved in at start. MongoDB as the distributed topology opens it.
 */
export async function openEmbeddedOperationStore(
  cfg: CommonConfig,
  deps: { legacy: Database | undefined; writerThread: boolean; logger: Logger; metrics: MetricsRegistry },
): Promise<OperationStore> {
  if (cfg.store === "mongodb") return openOperationStore(cfg);
  const named = deps.legacy?.filename;
  const legacy = named && named !== ":memory:" ? deps.legacy : undefined;
  const file = join(cfg.dataDir, LOGS_SQLITE_FILE);
  let store: OperationStore;
  let moved = 0;
  if (deps.writerThread) {
    ({ store, moved } = await ThreadedOperationStore.open({
      file,
      cacheMb: cfg.sqliteCacheMb,
      logger: deps.logger,
      metrics: deps.metrics,
      ...(legacy ? { legacyFile: legacy.filename } : {}),
    }));
  } else {
    store = new SqliteOperationStore(openDatabase(file, { cacheMb: cfg.sqliteCacheMb }));
    if (legacy) moved = await moveLegacyOperations(legacy, store);
  }
  if (moved > 0)
    deps.logger.info("operations log moved into its own file", { operations: moved, file: LOGS_SQLITE_FILE });
  return store;
}
