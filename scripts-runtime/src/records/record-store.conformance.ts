import { afterEach, describe, expect, test } from "bun:test";
import { hashData } from "./prepare-records.ts";
import type { PreparedRecord, RecordScope, RecordStore, StoredRecord } from "./record-store.ts";

/** Builds a fresh, empty store for one test and a cleanup. */
export type RecordStoreFactory = () => Promise<{ store: RecordStore; cleanup: () => Promise<void> }>;

/** The partition the conformance tests (and the feed's) write to. */
export const scope: RecordScope = {
  environmentId: "env_1",
  providerConfigKey: "github",
  connectionId: "conn-a",
  model: "Issue",
  variant: "base",
};
const other: RecordScope = { ...scope, connectionId: "conn-b" };

/** A prepared record of `fields`. */
export const rec = (id: string, fields: Record<string, unknown> = { title: `t-${id}` }): PreparedRecord => {
  const data = JSON.stringify(fields);
  return { id, data, hash: hashData(data) };
};
const all = { afterSeq: null, limit: 1000, actions: null, modifiedAfter: null, ids: null };
const ids = (records: StoredRecord[]) => records.map((r) => r.id);

/** The behaviour every RecordStore implementation must have (SQLite and MongoDB). */
export function recordStoreConformance(name: string, factory: RecordStoreFactory): void {
  describe(`${name} (records store conformance)`, () => {
    let cleanup: (() => Promise<void>) | undefined;
    const open = async () => {
      const made = await factory();
      cleanup = made.cleanup;
      return made.store;
    };
    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    test("a save adds records in id order, and an identical save changes nothing", async () => {
      const store = await open();
      expect(await store.save(scope, [rec("b"), rec("a"), rec("a", { title: "dup" })], { now: 1000 })).toEqual({
        added: 2,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      const first = await store.list(scope, all);
      expect(ids(first.records)).toEqual(["a", "b"]);
      expect(first.records[0]).toMatchObject({ action: "ADDED", firstSeenAt: 1000, lastModifiedAt: 1000 });
      // The first occurrence of an id in a batch is kept, as Nango keeps it.
      expect(first.records[0]?.data).toBe('{"title":"t-a"}');
      expect(await store.save(scope, [rec("a"), rec("b")], { now: 2000 })).toMatchObject({ unchanged: 2, added: 0 });
      expect((await store.list(scope, all)).records).toEqual(first.records);
    });

    test("a changed record is UPDATED and moves after the others; the order is modification then id", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b"), rec("c")], { now: 1000 });
      expect(await store.save(scope, [rec("a", { title: "new" }), rec("b")], { now: 2000 })).toMatchObject({
        updated: 1,
        unchanged: 1,
      });
      const { records } = await store.list(scope, all);
      expect(ids(records)).toEqual(["b", "c", "a"]);
      expect(records[2]).toMatchObject({ action: "UPDATED", firstSeenAt: 1000, lastModifiedAt: 2000 });
      const seqs = records.map((r) => r.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      // A clock that went back never puts a change before an older one.
      await store.save(scope, [rec("b", { title: "later" })], { now: 500 });
      const after = await store.list(scope, all);
      expect(ids(after.records)).toEqual(["c", "a", "b"]);
      expect(after.records[2]?.lastModifiedAt).toBe(2000);
    });

    test("delete keeps the payload, marks DELETED, and a later save brings the record back as UPDATED", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b")], { now: 1000 });
      expect(await store.delete(scope, ["a", "zz"], 2000)).toMatchObject({ deleted: 1 });
      expect(await store.delete(scope, ["a"], 2500)).toMatchObject({ deleted: 0 });
      const [deleted] = await store.getByIds(scope, ["a"]);
      expect(deleted).toMatchObject({ action: "DELETED", deletedAt: 2000, data: '{"title":"t-a"}' });
      expect(await store.save(scope, [rec("a")], { now: 3000 })).toMatchObject({ updated: 1 });
      expect((await store.getByIds(scope, ["a"]))[0]).toMatchObject({ action: "UPDATED", deletedAt: null });
    });

    test("list filters: a union of actions, modified after, ids, pages with hasMore", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b"), rec("c"), rec("d")], { now: 1000 });
      await store.save(scope, [rec("b", { title: "x" })], { now: 2000 });
      await store.delete(scope, ["c"], 3000);
      const only = async (actions: ("ADDED" | "UPDATED" | "DELETED")[]) =>
        ids((await store.list(scope, { ...all, actions })).records);
      expect(await only(["ADDED"])).toEqual(["a", "d"]);
      expect(await only(["UPDATED", "DELETED"])).toEqual(["b", "c"]);
      expect(await only(["DELETED"])).toEqual(["c"]);
      expect(ids((await store.list(scope, { ...all, modifiedAfter: 2000 })).records)).toEqual(["b", "c"]);
      expect(ids((await store.list(scope, { ...all, ids: ["d", "a", "nope"] })).records)).toEqual(["a", "d"]);
      const page = await store.list(scope, { ...all, limit: 2 });
      expect(ids(page.records)).toEqual(["a", "d"]);
      expect(page.hasMore).toBe(true);
      const next = await store.list(scope, { ...all, limit: 2, afterSeq: page.records[1]?.seq ?? 0 });
      expect(ids(next.records)).toEqual(["b", "c"]);
      expect(next.hasMore).toBe(false);
    });

    test("a walk while a sync writes meets each record once, unless it changed after the walk passed it", async () => {
      const store = await open();
      await store.save(
        scope,
        Array.from({ length: 30 }, (_, i) => rec(`r${String(i).padStart(2, "0")}`)),
        { now: 1000 },
      );
      const seen: string[] = [];
      let afterSeq: number | null = null;
      let lastSeq = 0;
      for (let page = 0; ; page++) {
        const res = await store.list(scope, { ...all, limit: 7, afterSeq });
        for (const r of res.records) {
          expect(r.seq).toBeGreaterThan(lastSeq);
          lastSeq = r.seq;
          seen.push(r.id);
        }
        // Between pages: a not-yet-walked record changes, new ones arrive.
        if (page === 0) await store.save(scope, [rec("r20", { title: "moved" }), rec("new1")], { now: 2000 });
        if (!res.hasMore) break;
        afterSeq = res.records[res.records.length - 1]?.seq ?? null;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(31);
      expect(seen.slice(-2)).toEqual(["new1", "r20"]);
    });

    test("prune removes payloads up to the cursor, keeps the order, and a save restores the payload", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b"), rec("c")], { now: 1000 });
      const before = (await store.list(scope, all)).records;
      const untilB = before[1]?.seq as number;
      expect(await store.prune(scope, untilB, 1, 5000)).toEqual({ count: 1, hasMore: true });
      expect(await store.prune(scope, untilB, 10, 5000)).toEqual({ count: 1, hasMore: false });
      const after = (await store.list(scope, all)).records;
      expect(after.map((r): unknown[] => [r.id, r.seq, r.data === null, r.prunedAt])).toEqual([
        ["a", before[0]?.seq, true, 5000],
        ["b", before[1]?.seq, true, 5000],
        ["c", before[2]?.seq, false, null],
      ]);
      expect(await store.save(scope, [rec("a")], { now: 6000 })).toMatchObject({ unchanged: 1 });
      expect((await store.getByIds(scope, ["a"]))[0]).toMatchObject({
        data: '{"title":"t-a"}',
        prunedAt: null,
        seq: before[0]?.seq,
      });
    });

    test("deletion tracking marks deleted what was not saved since its start", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b"), rec("c")], { now: 1000 });
      const mark = await store.beginDeleteTracking(scope);
      await store.save(scope, [rec("a"), rec("c", { title: "changed" })], { now: 2000 });
      expect(await store.endDeleteTracking(scope, mark, 3000, 10)).toEqual({ count: 1, ids: ["b"] });
      expect((await store.getByIds(scope, ["b"]))[0]).toMatchObject({ action: "DELETED", deletedAt: 3000 });
      expect(await store.endDeleteTracking(scope, mark, 4000, 10)).toEqual({ count: 0, ids: [] });
    });

    test("a resumed run continues the phase it resumes: what the interrupted run saved counts as seen", async () => {
      const store = await open();
      expect(await store.beginDeleteTracking(scope, true)).toBe(1); // nothing to continue: a new phase
      await store.save(scope, [rec("a"), rec("b"), rec("c"), rec("d")], { now: 1000 });
      await store.endDeleteTracking(scope, 1, 1500, 10);
      const interrupted = await store.beginDeleteTracking(scope);
      await store.save(scope, [rec("a")], { now: 2000 }); // then stopped before trackDeletesEnd
      const resumed = await store.beginDeleteTracking(scope, true);
      expect(resumed).toBe(interrupted);
      await store.save(scope, [rec("c")], { now: 3000 });
      expect(await store.endDeleteTracking(scope, resumed, 4000, 10)).toEqual({ count: 2, ids: ["b", "d"] });
    });

    test("update builds each record from the stored one, in one transaction: a failure writes nothing", async () => {
      const store = await open();
      await store.save(scope, [rec("a", { n: 1, tags: ["x"] }), rec("b", { n: 2 })], { now: 1000 });
      const counts = await store.update(
        scope,
        ["a", "new"],
        (id, existing) => (existing === null ? null : rec(id, { ...JSON.parse(existing), n: 10 })),
        { now: 2000 },
      );
      expect(counts).toMatchObject({ updated: 1, added: 0 });
      expect((await store.getByIds(scope, ["a"]))[0]?.data).toBe('{"n":10,"tags":["x"]}');
      const failing = store.update(
        scope,
        ["a", "b"],
        (id) => {
          if (id === "b") throw new Error("refused");
          return rec(id, { n: 99 });
        },
        { now: 3000 },
      );
      await expect(failing).rejects.toThrow("refused");
      expect((await store.getByIds(scope, ["a"]))[0]?.data).toBe('{"n":10,"tags":["x"]}');
    });

    test("ignore_if_modified_after leaves records modified after the given time", async () => {
      const store = await open();
      await store.save(scope, [rec("a")], { now: 1000 });
      await store.save(scope, [rec("b")], { now: 3000 });
      const counts = await store.save(scope, [rec("a", { t: 1 }), rec("b", { t: 1 })], {
        now: 4000,
        keepModifiedAfter: 2000,
      });
      expect(counts).toMatchObject({ updated: 1, unchanged: 1 });
      expect((await store.getByIds(scope, ["b"]))[0]?.data).toBe('{"title":"t-b"}');
    });

    test("connections, models and variants never see each other's records; secrets differ", async () => {
      const store = await open();
      await store.save(scope, [rec("a")], { now: 1000 });
      await store.save(other, [rec("z")], { now: 1000 });
      await store.save({ ...scope, variant: "v2" }, [rec("v")], { now: 1000 });
      expect(ids((await store.list(other, all)).records)).toEqual(["z"]);
      expect(await store.getByIds(other, ["a"])).toEqual([]);
      expect(await store.list({ ...scope, model: "Never" }, all)).toEqual({ records: [], hasMore: false });
      const [s1, s2] = [await store.secret(scope), await store.secret(other)];
      expect(s1?.length).toBe(32);
      expect(Buffer.from(s1 as Uint8Array).equals(Buffer.from(s2 as Uint8Array))).toBe(false);
      expect(await store.secret({ ...scope, model: "Never" })).toBeNull();
      const models = await store.models(scope);
      expect(models.map((m) => [m.model, m.variant, m.count])).toEqual([
        ["Issue", "base", 1],
        ["Issue", "v2", 1],
      ]);
      expect(await store.clear(scope, { model: "Issue", variant: "v2" })).toBe(1);
      expect(await store.clear(scope)).toBe(1);
      expect(await store.models(scope)).toEqual([]);
      expect(ids((await store.list(other, all)).records)).toEqual(["z"]);
    });

    test("a deleted connection is forgotten: every model, variant and checkpoint; other connections kept", async () => {
      const store = await open();
      await store.save(scope, [rec("a"), rec("b")], { now: 1000 });
      await store.save({ ...scope, model: "Pull" }, [rec("p")], { now: 1000 });
      await store.save({ ...scope, variant: "v2" }, [rec("v")], { now: 1000 });
      await store.save(other, [rec("z")], { now: 1000 });
      await store.saveCheckpoint({ ...scope, syncName: "issues" }, { page: 1 }, 1000);
      await store.saveCheckpoint({ ...other, syncName: "issues" }, { page: 2 }, 1000);
      // A connection id that is a prefix of another's, with characters a pattern would read.
      const lookalike = { ...scope, connectionId: "conn-a.*" };
      await store.saveCheckpoint({ ...lookalike, syncName: "issues" }, { page: 3 }, 1000);
      expect(await store.forgetConnection(scope)).toBe(4);
      expect(await store.models(scope)).toEqual([]);
      expect(await store.secret(scope)).toBeNull();
      expect(await store.getCheckpoint({ ...scope, syncName: "issues" })).toBeNull();
      expect(ids((await store.list(other, all)).records)).toEqual(["z"]);
      expect(await store.getCheckpoint({ ...other, syncName: "issues" })).toEqual({ page: 2 });
      expect(await store.getCheckpoint({ ...lookalike, syncName: "issues" })).toEqual({ page: 3 });
    });

    test("retention rules are kept per integration and replaced", async () => {
      const store = await open();
      const key = { environmentId: "env_1", providerConfigKey: "github" };
      expect(await store.retention.getRule(key)).toBeNull();
      await store.retention.setRule(key, { payloadDays: 30, recordsDays: 0 }, 1000);
      await store.retention.setRule(key, { payloadDays: 7, recordsDays: 60 }, 2000);
      await store.retention.setRule({ ...key, providerConfigKey: "other" }, { payloadDays: 1, recordsDays: 1 }, 2000);
      expect(await store.retention.getRule(key)).toEqual({ payloadDays: 7, recordsDays: 60 });
      const rules = await store.retention.listRules();
      expect(rules.sort((a, b) => a.providerConfigKey.localeCompare(b.providerConfigKey))).toEqual([
        { ...key, payloadDays: 7, recordsDays: 60 },
        { ...key, providerConfigKey: "other", payloadDays: 1, recordsDays: 1 },
      ]);
    });

    test("retention prunes and deletes only up to what the app has read", async () => {
      const store = await open();
      const key = { environmentId: scope.environmentId, providerConfigKey: scope.providerConfigKey };
      await store.save(scope, [rec("a"), rec("b")], { now: 1000 });
      await store.save(scope, [rec("c")], { now: 5000 });
      // Nothing read yet: nothing goes, however old.
      expect(await store.retention.apply(key, { pruneBefore: 10_000, deleteBefore: null }, 20_000)).toEqual({
        pruned: 0,
        deleted: 0,
      });
      const [a, b, c] = (await store.list(scope, all)).records;
      await store.retention.markRead(scope, b?.seq as number);
      await store.retention.markRead(scope, a?.seq as number);
      // Only records read past and unchanged since the cutoff lose their payload; order and cursors kept.
      expect(await store.retention.apply(key, { pruneBefore: 3000, deleteBefore: null }, 20_000)).toEqual({
        pruned: 2,
        deleted: 0,
      });
      const after = (await store.list(scope, all)).records;
      expect(after.map((r): unknown[] => [r.id, r.seq, r.data === null, r.prunedAt])).toEqual([
        ["a", a?.seq, true, 20_000],
        ["b", b?.seq, true, 20_000],
        ["c", c?.seq, false, null],
      ]);
      // A run since the cutoff keeps the records; without one, those read are deleted, the rest kept.
      await store.retention.markRun(scope, [{ model: "Issue", variant: "base" }], 30_000);
      expect(await store.retention.apply(key, { pruneBefore: null, deleteBefore: 30_000 }, 40_000)).toEqual({
        pruned: 0,
        deleted: 0,
      });
      expect(await store.retention.apply(key, { pruneBefore: null, deleteBefore: 30_001 }, 40_000)).toEqual({
        pruned: 0,
        deleted: 2,
      });
      expect(ids((await store.list(scope, all)).records)).toEqual(["c"]);
      expect((await store.models(scope))[0]?.count).toBe(1);
      // Another integration's records are untouched by this one's rule.
      expect(
        await store.retention.apply(
          { ...key, providerConfigKey: "none" },
          { pruneBefore: 1e15, deleteBefore: 1e15 },
          1,
        ),
      ).toEqual({
        pruned: 0,
        deleted: 0,
      });
    });

    test("checkpoints are kept per connection and sync, replaced and cleared", async () => {
      const store = await open();
      const key = { ...scope, syncName: "issues" };
      expect(await store.getCheckpoint(key)).toBeNull();
      await store.saveCheckpoint(key, { page: 2, since: "2024-01-01" }, 1000);
      await store.saveCheckpoint(key, { page: 3, done: false }, 2000);
      expect(await store.getCheckpoint(key)).toEqual({ page: 3, done: false });
      expect(await store.getCheckpoint({ ...key, connectionId: "conn-b" })).toBeNull();
      await store.clearCheckpoint(key);
      expect(await store.getCheckpoint(key)).toBeNull();
    });
  });
}
