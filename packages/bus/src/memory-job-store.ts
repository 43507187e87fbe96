import type { InsertResult, JobStore, StoredJob } from "./job-store.ts";

interface Entry extends StoredJob {
  availableAt: number;
}

// Expired de-duplication ids are swept at most this often, so a busy queue does not scan on every insert.
const SWEEP_EVERY_MS = 10_000;

/** Jobs kept in memory only: they are lost with the process. */
export class MemoryJobStore implements JobStore {
  // Maps iterate in insertion order, which is id order: the first available entry is the oldest.
  private readonly queues = new Map<string, Map<number, Entry>>();
  private readonly byId = new Map<number, Entry>();
  private readonly seenMsgIds = new Map<string, number>();
  private nextId = 1;
  private lastSweep = 0;

  constructor(private readonly dedupWindowMs: number) {}

  insert(queue: string, data: Uint8Array, msgId: string | undefined, now: number, leaseMs?: number): InsertResult {
    this.sweep(now);
    if (msgId !== undefined) {
      const key = `${queue}\n${msgId}`;
      const expiresAt = this.seenMsgIds.get(key);
      if (expiresAt !== undefined && expiresAt > now) return { duplicate: true };
      this.seenMsgIds.set(key, now + this.dedupWindowMs);
    }
    const claimed = leaseMs !== undefined;
    const entry: Entry = {
      id: this.nextId++,
      queue,
      data,
      msgId,
      deliveries: claimed ? 1 : 0,
      availableAt: claimed ? now + leaseMs : now,
    };
    this.entries(queue).set(entry.id, entry);
    this.byId.set(entry.id, entry);
    return claimed ? { duplicate: false, id: entry.id, claimed: { ...entry } } : { duplicate: false, id: entry.id };
  }

  claim(queue: string, now: number, leaseMs: number): StoredJob | undefined {
    for (const entry of this.entries(queue).values()) {
      if (entry.availableAt > now) continue;
      entry.deliveries++;
      entry.availableAt = now + leaseMs;
      return { ...entry };
    }
    return undefined;
  }

  nextAvailableAt(queue: string): number | undefined {
    let next: number | undefined;
    for (const entry of this.entries(queue).values()) {
      if (next === undefined || entry.availableAt < next) next = entry.availableAt;
    }
    return next;
  }

  release(id: number, deliveries: number, availableAt: number): void {
    const entry = this.byId.get(id);
    if (entry && entry.deliveries === deliveries) entry.availableAt = availableAt;
  }

  remove(id: number): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    this.queues.get(entry.queue)?.delete(id);
  }

  private entries(queue: string): Map<number, Entry> {
    let entries = this.queues.get(queue);
    if (!entries) {
      entries = new Map();
      this.queues.set(queue, entries);
    }
    return entries;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, expiresAt] of this.seenMsgIds) if (expiresAt <= now) this.seenMsgIds.delete(key);
  }
}
