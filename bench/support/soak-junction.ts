/**
 * The soak's Junction: the embedded default (`startEmbedded`, as `junction start` runs it) in this process,
 * answering the bench over IPC with what its memory holds, so the figures are the server's own and not
 * the driver's. Started by bench/soak.bench.ts with `ipc`; each message { id, gc, snapshot? } is answered
 * with { id, memory } (after a full collection when `gc`), and a heap snapshot written to `snapshot` when
 * given (Bun.generateHeapSnapshot: JSC's format, read with Safari's or WebKit's inspector).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { heapStats } from "bun:jsc";
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

function memory(dataDir: string): SoakMemory {
  const status = readFileSync("/proc/self/status", "utf8");
  const heap = heapStats();
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
    dbBytes: sizeOf(join(dataDir, "junction.sqlite")),
    walBytes: sizeOf(join(dataDir, "junction.sqlite-wal")),
  };
}

const dataDir = process.env.JUNCTION_DATA_DIR ?? "";
const junction = await startEmbedded();
process.on("message", (message: { id: number; gc?: boolean; snapshot?: string }) => {
  if (message.gc) Bun.gc(true);
  if (message.snapshot) writeFileSync(message.snapshot, JSON.stringify(Bun.generateHeapSnapshot()));
  process.send?.({ id: message.id, memory: memory(dataDir) });
});
const stop = async () => {
  await junction.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.send?.({ id: 0, ready: junction.port });
