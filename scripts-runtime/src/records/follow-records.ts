import type { Clock } from "@junction/platform";
import { FeedWaker } from "./feed-waker.ts";
import { recordJson } from "./present-records.ts";
import type { RecordChanges } from "./record-changes.ts";
import { cursorSigner } from "./record-cursor.ts";
import type { RecordScope, RecordStore } from "./record-store.ts";

/** What a change feed sends: a changed record (its cursor and GET /records' JSON of it), or a heartbeat. */
export type FeedEvent = { kind: "record"; cursor: string; json: string } | { kind: "heartbeat"; at: number };

export interface FollowOptions {
  store: RecordStore;
  changes: RecordChanges;
  clock: Clock;
  /** Time between heartbeats (the service clock). */
  heartbeatMs: number;
  /** How often the store is read when no write of this process woke the feed. */
  pollMs: number;
  /** Records read per store query. */
  pageSize: number;
}

/**
 * Follows one partition from `afterSeq`: walks it by cursor, then waits for this process's next write
 * to it, the poll interval (another process's writes) or the heartbeat. Ends when `signal` aborts, or
 * when the partition is removed or replaced (its cursors then mean nothing). Every timer and listener
 * is released when the walk ends or `signal` aborts, whether or not the consumer resumes it.
 */
export async function* followRecords(
  options: FollowOptions,
  scope: RecordScope,
  startSecret: Uint8Array | null,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<FeedEvent> {
  const { store, clock } = options;
  const waker = new FeedWaker(options, scope, signal);
  let secret = startSecret;
  let position = afterSeq;
  try {
    while (!signal.aborted) {
      waker.woken = false;
      const current = await store.secret(scope);
      if (secret && !sameSecret(secret, current)) return;
      secret = current;
      if (secret) {
        const page = await store.list(scope, {
          afterSeq: position,
          limit: options.pageSize,
          actions: null,
          modifiedAfter: null,
          ids: null,
        });
        const sign = cursorSigner(secret);
        for (const record of page.records) {
          if (signal.aborted) return;
          yield { kind: "record", cursor: sign(record.seq), json: recordJson(record, sign) };
          position = record.seq;
        }
        // What the feed sent is read: retention may go up to it.
        if (page.records.length) await store.retention.markRead(scope, position);
        if (page.hasMore) continue;
      }
      if (waker.heartbeatDue) {
        waker.heartbeatDue = false;
        yield { kind: "heartbeat", at: clock.now() };
        continue;
      }
      if (waker.woken || signal.aborted) continue;
      await waker.sleep();
    }
  } finally {
    waker.release();
  }
}

function sameSecret(a: Uint8Array, b: Uint8Array | null): boolean {
  return b !== null && Buffer.from(a).equals(Buffer.from(b));
}
