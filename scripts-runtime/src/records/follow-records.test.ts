import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { type FeedEvent, followRecords } from "./follow-records.ts";
import { RecordChanges, signallingStore } from "./record-changes.ts";
import { decodeCursor } from "./record-cursor.ts";
import { rec as conformanceRecord, scope } from "./record-store.conformance.ts";
import { SqliteRecordStore } from "./sqlite-record-store.ts";

const rec = (id: string, title = `t-${id}`) => conformanceRecord(id, { title });

/** A feed read in the background: what it sent so far, and a way to end it as a client going away would. */
function reader(feed: AsyncGenerator<FeedEvent>, abort: AbortController) {
  const events: FeedEvent[] = [];
  const done = (async () => {
    for await (const e of feed) events.push(e);
  })();
  return { events, done, stop: () => abort.abort() };
}

/** Lets the feed's awaited store calls finish (no time passes on the manual clock). */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never: ${what}`);
}

describe("followRecords: a change feed fed from the store", () => {
  let db: Database;
  afterEach(() => db?.close());
  const setup = () => {
    db = new Database(":memory:");
    const raw = new SqliteRecordStore(db);
    const changes = new RecordChanges();
    const clock = new ManualClock();
    const store = signallingStore(raw, changes);
    const options = { store, changes, clock, heartbeatMs: 15_000, pollMs: 1000, pageSize: 2 };
    return { raw, store, changes, clock, options };
  };

  test("sends every record after the cursor in order, then each write of this process at once", async () => {
    const { store, options, changes, clock } = setup();
    await store.save(scope, [rec("a"), rec("b"), rec("c")], { now: 1000 });
    const secret = await store.secret(scope);
    const first = (await store.list(scope, { afterSeq: null, limit: 1, actions: null, modifiedAfter: null, ids: null }))
      .records[0];
    const abort = new AbortController();
    const r = reader(followRecords(options, scope, secret, first?.seq ?? 0, abort.signal), abort);
    await until("b and c", () => r.events.length === 2);
    const ids = () => r.events.flatMap((e) => (e.kind === "record" ? [JSON.parse(e.json).id] : []));
    expect(ids()).toEqual(["b", "c"]);
    const sent = r.events[0] as Extract<FeedEvent, { kind: "record" }>;
    expect(JSON.parse(sent.json)).toMatchObject({ title: "t-b", _nango_metadata: { cursor: sent.cursor } });
    expect(decodeCursor(secret, sent.cursor)).toBeGreaterThan(first?.seq ?? 0);
    // A local write wakes the feed without any time passing (no poll).
    await store.save(scope, [rec("a", "changed"), rec("d")], { now: 2000 });
    await until("the write", () => r.events.length === 4);
    expect(ids()).toEqual(["b", "c", "a", "d"]);
    expect(JSON.parse((r.events[2] as { json: string }).json)._nango_metadata.last_action).toBe("UPDATED");
    r.stop();
    await r.done;
    expect(changes.size()).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("a write of another process (the store unsignalled) arrives at the next poll", async () => {
    const { raw, store, options, clock } = setup();
    await store.save(scope, [rec("a")], { now: 1000 });
    const abort = new AbortController();
    const r = reader(followRecords(options, scope, await store.secret(scope), 0, abort.signal), abort);
    await until("a", () => r.events.length === 1);
    await raw.save(scope, [rec("b")], { now: 2000 });
    await clock.advance(500);
    expect(r.events.length).toBe(1);
    await clock.advance(500);
    await until("b at the poll", () => r.events.length === 2);
    r.stop();
    await r.done;
    expect(clock.pending()).toBe(0);
  });

  test("a feed of a model never written starts sending once it is", async () => {
    const { store, options, changes } = setup();
    const abort = new AbortController();
    const r = reader(followRecords(options, scope, null, 0, abort.signal), abort);
    await until("listening", () => changes.size() === 1);
    await store.save(scope, [rec("x")], { now: 1000 });
    await until("x", () => r.events.length === 1);
    r.stop();
    await r.done;
  });

  test("heartbeats on the clock's interval while nothing changes", async () => {
    const { store, options, clock } = setup();
    await store.save(scope, [rec("a")], { now: 1000 });
    const abort = new AbortController();
    const r = reader(followRecords(options, scope, await store.secret(scope), 0, abort.signal), abort);
    await until("a", () => r.events.length === 1);
    await clock.advance(14_999);
    expect(r.events.map((e) => e.kind)).toEqual(["record"]);
    await clock.advance(1);
    await until("a heartbeat", () => r.events.length === 2);
    await clock.advance(15_000);
    await until("another", () => r.events.length === 3);
    expect(r.events.map((e) => e.kind)).toEqual(["record", "heartbeat", "heartbeat"]);
    r.stop();
    await r.done;
    expect(clock.pending()).toBe(0);
  });

  test("ends, releasing its timers and listener, when the partition is removed", async () => {
    const { store, options, changes, clock } = setup();
    await store.save(scope, [rec("a")], { now: 1000 });
    const abort = new AbortController();
    const r = reader(followRecords(options, scope, await store.secret(scope), 0, abort.signal), abort);
    await until("a", () => r.events.length === 1);
    await store.clear(scope);
    await r.done;
    expect(changes.size()).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("a consumer that stops reading (return) releases everything too", async () => {
    const { store, options, changes, clock } = setup();
    await store.save(scope, [rec("a"), rec("b")], { now: 1000 });
    const feed = followRecords(options, scope, await store.secret(scope), 0, new AbortController().signal);
    expect((await feed.next()).done).toBe(false);
    await feed.return(undefined);
    expect(changes.size()).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("an abort while the consumer no longer pulls releases everything at once", async () => {
    const { store, options, changes, clock } = setup();
    await store.save(scope, [rec("a"), rec("b")], { now: 1000 });
    const abort = new AbortController();
    const feed = followRecords(options, scope, await store.secret(scope), 0, abort.signal);
    expect((await feed.next()).done).toBe(false);
    expect(changes.size()).toBe(1);
    abort.abort();
    expect(changes.size()).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
