// The operations log's thread (a Bun Worker started by ThreadedOperationStore): it owns the log's SQLite
// file and runs its writes, retention and reads, one request at a time, in the order they came.
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { openDatabase } from "@junction/platform/sqlite";
import { operationsFromJson } from "@junction/platform/operations/delivery-round";
import { moveLegacyOperations } from "./legacy-operations.ts";
import type { OperationFilter, OperationPosition, RetentionBounds } from "./operation-store.ts";
import { SqliteOperationStore } from "./sqlite-operation-store.ts";

declare const self: Worker;

/** What the main thread asks; `id` pairs each request with its answer. */
export type WriterRequest =
  | { id: number; op: "open"; file: string; cacheMb: number; legacyFile?: string }
  /** The batch as JSON: a string crosses threads for about a quarter of the CPU a structured clone of its objects takes. */
  | { id: number; op: "insert"; batch: string }
  | { id: number; op: "prune"; bounds: RetentionBounds; nowMs: number }
  | { id: number; op: "count" }
  | { id: number; op: "list"; filter: OperationFilter; limit: number; after?: OperationPosition }
  | { id: number; op: "get"; key: string }
  | { id: number; op: "close" };

/** A count, or a read's operations as JSON (parsed on the main thread: cheaper than a structured clone). */
export type WriterAnswer = { id: number; ok: true; value: number | string } | { id: number; ok: false; error: string };

let db: Database | undefined;
let store: SqliteOperationStore | undefined;

async function handle(req: WriterRequest): Promise<number | string> {
  if (req.op === "open") {
    db = openDatabase(req.file, { cacheMb: req.cacheMb });
    store = new SqliteOperationStore(db);
    if (!req.legacyFile || !existsSync(req.legacyFile)) return 0;
    const legacy = openDatabase(req.legacyFile, { cacheMb: 2 });
    try {
      return await moveLegacyOperations(legacy, store);
    } finally {
      legacy.close();
    }
  }
  if (req.op === "close") {
    db?.close();
    db = undefined;
    store = undefined;
    return 0;
  }
  if (!store) throw new Error("the operations log's file is not open");
  if (req.op === "insert") {
    // The recorder's text: operations' own JSON, and delivery rounds as their facts, rendered here.
    const batch = operationsFromJson(req.batch);
    await store.insert(batch);
    return batch.length;
  }
  if (req.op === "count") return store.count();
  if (req.op === "list") return JSON.stringify(await store.list(req.filter, req.limit, req.after));
  if (req.op === "get") return JSON.stringify((await store.get(req.key)) ?? null);
  return store.prune(req.bounds, req.nowMs);
}

// Requests are taken one after the other: a later one never starts before an earlier one is done.
let queue: Promise<void> = Promise.resolve();
self.onmessage = (event: MessageEvent<WriterRequest>) => {
  const req = event.data;
  queue = queue.then(async () => {
    let answer: WriterAnswer;
    try {
      answer = { id: req.id, ok: true, value: await handle(req) };
    } catch (err) {
      answer = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    self.postMessage(answer);
  });
};
