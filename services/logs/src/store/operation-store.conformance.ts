import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Operation } from "@junction/platform/operations/operation";
import type { OperationStore } from "./operation-store.ts";

export type OperationStoreFactory = () => Promise<{ store: OperationStore; cleanup: () => Promise<void> }>;

let n = 0;
/** An operation for the suite: unique id, the given fields over plain defaults. */
export function op(fields: Partial<Operation> = {}): Operation {
  n++;
  const startedAtMs = fields.startedAtMs ?? 1_000_000 + n;
  return {
    id: `op_${String(startedAtMs).padStart(13, "0")}_${String(n).padStart(6, "0")}`,
    kind: "proxy_call",
    status: "success",
    startedAtMs,
    durationMs: 5,
    environmentId: "env_1",
    integration: "cal",
    connection: "c1",
    endUser: "",
    tags: [],
    title: "GET /calendars → 200",
    messages: [],
    ...fields,
  };
}

/** The behaviour both stores share: filters, order, paging, search, retention. */
export function operationStoreConformance(name: string, factory: OperationStoreFactory): void {
  describe(`${name} (operation store conformance)`, () => {
    let store: OperationStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => cleanup());

    test("keeps an operation whole and skips an id stored twice", async () => {
      const a = op({
        tags: ["beta", "eu"],
        endUser: "u1",
        messages: [{ atMs: 5, level: "info", text: "upstream answered 200", fields: { status: 200 } }],
      });
      await store.insert([a]);
      await store.insert([{ ...a, status: "failed" }]);
      expect(await store.get(a.id)).toEqual(a);
      expect(await store.count()).toBe(1);
      expect(await store.get("op_missing")).toBeUndefined();
    });

    test("a large batch holding an id already stored keeps every other operation, its tags and its text", async () => {
      const stored = op({ title: "stored before" });
      await store.insert([stored]);
      const batch = Array.from({ length: 70 }, (_, i) => op({ title: `call${i} done`, tags: i % 2 ? ["odd"] : [] }));
      batch.splice(40, 0, { ...stored, title: "a second copy" });
      await store.insert(batch);
      expect(await store.count()).toBe(71);
      expect((await store.get(stored.id))?.title).toBe("stored before");
      expect((await store.list({ q: "copy" }, 10)).length).toBe(0);
      expect((await store.list({ q: "call69" }, 10)).map((o) => o.id)).toEqual([String(batch[70]?.id)]);
      expect((await store.list({ q: "call39" }, 10)).map((o) => o.id)).toEqual([String(batch[39]?.id)]);
      expect((await store.list({ tag: "odd" }, 100)).length).toBe(35);
    });

    test("filters by kind, status, integration, connection, end user, tag and period, newest first", async () => {
      const ops = [
        op({ startedAtMs: 100, kind: "token_refresh", status: "failed" }),
        op({ startedAtMs: 200, integration: "mail", connection: "c2", endUser: "u9" }),
        op({ startedAtMs: 300, tags: ["vip"] }),
        op({ startedAtMs: 400 }),
      ];
      await store.insert(ops);
      const ids = async (f: Parameters<OperationStore["list"]>[0]) => (await store.list(f, 10)).map((o) => o.id);
      const [a, b, c, d] = ops.map((o) => o.id) as [string, string, string, string];
      expect(await ids({})).toEqual([d, c, b, a]);
      expect(await ids({ kind: "token_refresh" })).toEqual([a]);
      expect(await ids({ status: "failed" })).toEqual([a]);
      expect(await ids({ integration: "mail" })).toEqual([b]);
      expect(await ids({ connection: "c1" })).toEqual([d, c, a]);
      expect(await ids({ endUser: "u9" })).toEqual([b]);
      expect(await ids({ tag: "vip" })).toEqual([c]);
      expect(await ids({ fromMs: 200, toMs: 400 })).toEqual([c, b]);
    });

    test("keeps a total of many calls (count and latency) beside operations of one call, under the same filters", async () => {
      const total = op({
        startedAtMs: 60_000,
        durationMs: 60_000,
        title: "GET ×1000 → 200",
        totals: { count: 1000, latencyMinMs: 1, latencyMaxMs: 250.5, latencySumMs: 7321.25 },
      });
      const single = op({ startedAtMs: 60_500, status: "failed", title: "GET /calendars → 503" });
      await store.insert([total, single]);
      expect(await store.get(total.id)).toEqual(total);
      expect((await store.get(single.id))?.totals).toBeUndefined();
      expect(await store.list({ kind: "proxy_call", status: "success", connection: "c1" }, 10)).toEqual([total]);
      expect((await store.list({ q: "1000" }, 10)).map((o) => o.id)).toEqual([total.id]);
    });

    test("pages after a position without repeating or skipping, same start times included", async () => {
      const ops = Array.from({ length: 7 }, (_, i) => op({ startedAtMs: 1000 + Math.floor(i / 3) }));
      await store.insert(ops);
      const seen: string[] = [];
      let after: { startedAtMs: number; id: string } | undefined;
      for (;;) {
        const page = await store.list({}, 3, after);
        seen.push(...page.map((o) => o.id));
        const last = page.at(-1);
        if (page.length < 3 || !last) break;
        after = { startedAtMs: last.startedAtMs, id: last.id };
      }
      expect(seen).toEqual(ops.map((o) => o.id).reverse());
    });

    test("searches the title and the messages by whole words and prefixes, every word required", async () => {
      const a = op({ messages: [{ atMs: 1, level: "error", text: "Delivery attempt 3 refused: 503 Unavailable" }] });
      const b = op({ title: "sync contacts finished", messages: [{ atMs: 1, level: "info", text: "saved 12" }] });
      await store.insert([a, b]);
      const ids = async (q: string) => (await store.list({ q }, 10)).map((o) => o.id);
      expect(await ids("unavailable")).toEqual([a.id]);
      expect(await ids("unavail")).toEqual([a.id]);
      expect(await ids("contacts saved")).toEqual([b.id]);
      expect(await ids("contacts refused")).toEqual([]);
      expect(await ids('"quoted" AND (x) *')).toEqual([]);
      const c = op({ messages: [{ atMs: 1, level: "error", text: "not_found: unknown_connection c9" }] });
      await store.insert([c]);
      expect(await ids("unknown_connection")).toEqual([c.id]);
      expect(await ids("unknown_conn")).toEqual([c.id]);
    });

    test("retention removes the operations older than the age, then the oldest past the count", async () => {
      const old = op({ startedAtMs: 10 });
      const recent = Array.from({ length: 5 }, (_, i) => op({ startedAtMs: 1000 + i, tags: ["t"] }));
      await store.insert([old, ...recent]);
      expect(await store.prune({ maxAgeMs: 500, maxCount: 100 }, 1100)).toBe(1);
      expect(await store.get(old.id)).toBeUndefined();
      expect(await store.prune({ maxAgeMs: 500, maxCount: 3 }, 1100)).toBe(2);
      expect((await store.list({ tag: "t" }, 10)).map((o) => o.id)).toEqual(
        recent
          .slice(2)
          .map((o) => o.id)
          .reverse(),
      );
      expect(await store.list({ q: "calendars" }, 10)).toHaveLength(3);
      expect(await store.count()).toBe(3);
    });
  });
}
