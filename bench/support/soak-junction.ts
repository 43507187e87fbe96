/**
 * The soak's Junction: the embedded default (`startEmbedded`, as `junction start` runs it) in this process,
 * answering the bench over IPC with what its memory holds, so the figures are the server's own and not
 * the driver's. Started by bench/soak.bench.ts with `ipc`; each message { id, gc, snapshot? } is answered
 * with { id, memory } (after a full collection when `gc`), and a heap snapshot written to `snapshot` when
 * given (Bun.generateHeapSnapshot("v8"): the format Chrome's DevTools read, with each string's text).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { heapStats } from "bun:jsc";
import { Database } from "bun:sqlite";
import { startEmbedded } from "@junction/cli";

export interface SoakMemory {
  /** /proc/self/status, bytes: resident, anonymous (heap, malloc) and file-backed (mmap of the database). */
  rss: number;
  rssAnon: number;
  rssFile: number;
  /** JSC's heap: bytes in use, objects, and the objects per type. */
  heapSize: number;
  heapCapacity: number;
  extraMemory: number;
  objectCount: number;
  objectTypeCounts: Record<string, number>;
  /** process.memoryUsage(): external and array buffers (Bun's native allocations seen by JS). */
  external: number;
  arrayBuffers: number;
  /** mimalloc (Bun's allocator): bytes committed, and bytes of live allocations. */
  mallocCommitted: number;
  mallocLive: number;
  /** Anonymous resident bytes by mapping kind (smaps): executable (JIT code), and the rest by size class. */
  anonByKind: Record<string, number>;
  /** SQLite: connections open, statements prepared and not yet finalized, bytes freed by `shrink_memory`. */
  sqliteConnections: number;
  sqliteStatements: number;
  sqliteCacheFreed: number;
  /** The SQLite file and its write-ahead log, bytes. */
  dbBytes: number;
  walBytes: number;
}

function statusField(status: string, name: string): number {
  return Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Anonymous resident memory per kind of mapping, from /proc/self/smaps. */
function anonByKind(): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = "";
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const [, from, to, perms, inode, name] = head as unknown as string[];
      const mib = (Number.parseInt(to as string, 16) - Number.parseInt(from as string, 16)) / 1048576;
      if (inode !== "0") kind = "";
      else if (name) kind = name;
      else if (perms?.includes("x")) kind = "exec";
      else kind = mib >= 64 ? "anon ≥64M map" : mib >= 1 ? "anon 1–64M map" : "anon <1M map";
      continue;
    }
    const anon = /^Anonymous:\s+(\d+) kB/.exec(line);
    if (anon && kind) out[kind] = (out[kind] ?? 0) + Number(anon[1]) * 1024;
  }
  return out;
}

// Every connection Junction opens (each runs PRAGMAs through exec) and every statement it prepares, seen
// from here: the soak measures them, Junction does not know.
const connections = new Set<Database>();
const seen = new WeakSet<object>();
let statements = 0;
const finalized = new FinalizationRegistry<void>(() => {
  statements--;
});
const proto = Database.prototype as unknown as Record<string, (this: Database, ...args: unknown[]) => unknown>;
for (const name of ["exec", "query", "prepare"]) {
  const original = proto[name] as (this: Database, ...args: unknown[]) => unknown;
  proto[name] = function (...args) {
    connections.add(this);
    const made = original.apply(this, args);
    // `query` answers a statement it cached again: each is counted once.
    if (name !== "exec" && typeof made === "object" && made !== null && !seen.has(made)) {
      seen.add(made);
      statements++;
      finalized.register(made);
    }
    return made;
  };
}

/** Live malloc bytes that `PRAGMA shrink_memory` frees: the page caches' unpinned pages, roughly. */
function shrinkSqlite(): number {
  const live = () => {
    const m = (heapStats() as unknown as { mimalloc?: MallocStats }).mimalloc;
    return (m?.malloc_normal?.current ?? 0) + (m?.malloc_huge?.current ?? 0);
  };
  const before = live();
  for (const db of connections) db.exec("PRAGMA shrink_memory");
  return before - live();
}

interface MallocStats {
  committed?: { current: number };
  malloc_normal?: { current: number };
  malloc_huge?: { current: number };
}

function memory(dataDir: string, shrink: boolean): SoakMemory {
  const status = readFileSync("/proc/self/status", "utf8");
  const heap = heapStats();
  const malloc = (heap as unknown as { mimalloc?: MallocStats }).mimalloc;
  const usage = process.memoryUsage();
  return {
    rss: statusField(status, "VmRSS"),
    rssAnon: statusField(status, "RssAnon"),
    rssFile: statusField(status, "RssFile"),
    heapSize: heap.heapSize,
    heapCapacity: heap.heapCapacity,
    extraMemory: heap.extraMemorySize,
    objectCount: heap.objectCount,
    objectTypeCounts: heap.objectTypeCounts,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    mallocCommitted: malloc?.committed?.current ?? 0,
    mallocLive: (malloc?.malloc_normal?.current ?? 0) + (malloc?.malloc_huge?.current ?? 0),
    anonByKind: anonByKind(),
    sqliteConnections: connections.size,
    sqliteStatements: statements,
    sqliteCacheFreed: shrink ? shrinkSqlite() : 0,
    dbBytes: sizeOf(join(dataDir, "junction.sqlite")),
    walBytes: sizeOf(join(dataDir, "junction.sqlite-wal")),
  };
}

const dataDir = process.env.JUNCTION_DATA_DIR ?? "";
const junction = await startEmbedded();
process.on("message", (message: { id: number; gc?: boolean; snapshot?: string; shrink?: boolean }) => {
  if (message.gc) Bun.gc(true);
  if (message.snapshot) writeFileSync(message.snapshot, Bun.generateHeapSnapshot("v8"));
  process.send?.({ id: message.id, memory: memory(dataDir, message.shrink === true) });
});
const stop = async () => {
  await junction.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
// The bench gone (killed), this process goes too: it must not keep a port and a data dir alone.
process.on("disconnect", () => void stop());
process.send?.({ id: 0, ready: junction.port });
