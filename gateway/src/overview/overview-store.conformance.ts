import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  type BucketRow,
  HOUR_MS,
  HOUR_RETENTION_MS,
  MINUTE_MS,
  MINUTE_RETENTION_MS,
  type OverviewStore,
} from "./overview-store.ts";

export type OverviewStoreFactory = () => Promise<{ store: OverviewStore; cleanup: () => Promise<void> }>;

const at = Date.UTC(2026, 10, 21, 12, 0, 0);
const deltas = (entries: [string, number][]) => new Map(entries);
/** In one order whatever the store's order within a bucket start. */
const sorted = (rows: BucketRow[]) =>
  rows.toSorted((a, b) => a.startMs - b.startMs || a.series.localeCompare(b.series) || a.label.localeCompare(b.label));

/** The behaviour both overview stores share: buckets added to, read per resolution and period, pruned. */
export function overviewStoreConformance(name: string, factory: OverviewStoreFactory): void {
  describe(`${name} (overview store conformance)`, () => {
    let store: OverviewStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => cleanup());

    test("adds each delta to its minute bucket and its hour bucket; a second add sums", async () => {
      await store.add(
        at + 5_000,
        deltas([
          ["proxy\t2xx", 3],
          ["latency\tp50", 0.25],
        ]),
      );
      await store.add(at + 50_000, deltas([["proxy\t2xx", 2]]));
      await store.add(at + 61_000, deltas([["proxy\t5xx", 1]]));
      await store.add(at, deltas([]));
      expect(sorted(await store.read(MINUTE_MS, at, at + HOUR_MS))).toEqual([
        { startMs: at, series: "latency", label: "p50", value: 0.25 },
        { startMs: at, series: "proxy", label: "2xx", value: 5 },
        { startMs: at + MINUTE_MS, series: "proxy", label: "5xx", value: 1 },
      ]);
      expect(sorted(await store.read(HOUR_MS, at, at + HOUR_MS))).toEqual([
        { startMs: at, series: "latency", label: "p50", value: 0.25 },
        { startMs: at, series: "proxy", label: "2xx", value: 5 },
        { startMs: at, series: "proxy", label: "5xx", value: 1 },
      ]);
    });

    test("reads the buckets starting in [from, to), oldest first", async () => {
      for (let i = 0; i < 5; i++) await store.add(at + i * MINUTE_MS, deltas([["runs\tsuccess", i + 1]]));
      const rows = await store.read(MINUTE_MS, at + MINUTE_MS, at + 4 * MINUTE_MS);
      expect(rows.map((r) => [r.startMs - at, r.value])).toEqual([
        [MINUTE_MS, 2],
        [2 * MINUTE_MS, 3],
        [3 * MINUTE_MS, 4],
      ]);
    });

    test("prunes each resolution past its retention", async () => {
      const now = at + 10 * 24 * HOUR_MS;
      await store.add(now - MINUTE_RETENTION_MS - HOUR_MS, deltas([["refreshes\tfailed", 1]]));
      await store.add(now - 2 * HOUR_MS, deltas([["refreshes\tfailed", 2]]));
      await store.add(now - HOUR_RETENTION_MS - HOUR_MS, deltas([["refreshes\tfailed", 4]]));
      await store.prune(now);
      expect((await store.read(MINUTE_MS, 0, now)).map((r) => r.value)).toEqual([2]);
      expect((await store.read(HOUR_MS, 0, now)).map((r) => r.value)).toEqual([1, 2]);
    });

    test("the sampling lease: held by one until it runs out, renewed by its holder, then taken by another", async () => {
      expect(await store.claimSampling("a", at, 45_000)).toBe(true);
      expect(await store.claimSampling("b", at + 15_000, 45_000)).toBe(false);
      expect(await store.claimSampling("a", at + 30_000, 45_000)).toBe(true);
      // Renewed at +30 s: still a's at +74.999 s, out at +75 s.
      expect(await store.claimSampling("b", at + 74_999, 45_000)).toBe(false);
      expect(await store.claimSampling("b", at + 75_000, 45_000)).toBe(true);
      expect(await store.claimSampling("a", at + 76_000, 45_000)).toBe(false);
    });

    test("a released lease is taken at once; a release by another than its holder changes nothing", async () => {
      expect(await store.claimSampling("a", at, 45_000)).toBe(true);
      await store.releaseSampling("b");
      expect(await store.claimSampling("b", at + 1_000, 45_000)).toBe(false);
      await store.releaseSampling("a");
      expect(await store.claimSampling("b", at + 1_000, 45_000)).toBe(true);
    });

    test("of claims made at once, exactly one holds the lease", async () => {
      const holders = ["a", "b", "c", "d", "e", "f"];
      const won = await Promise.all(holders.map((h) => store.claimSampling(h, at, 45_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = holders[won.indexOf(true)] as string;
      expect(await store.claimSampling(winner, at + 15_000, 45_000)).toBe(true);
    });
  });
}
