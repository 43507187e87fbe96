import { describe, expect, test } from "bun:test";
import { type CacheEntry, ExpiringCache, SharedLoads } from "./expiring-cache.ts";

describe("ExpiringCache", () => {
  test("serves a value until its end, never at or after it", () => {
    let now = 0;
    const cache = new ExpiringCache<string, number>({ maxEntries: 10, now: () => now });
    cache.set("a", 1, 100);
    now = 99;
    expect(cache.get("a")).toBe(1);
    expect(cache.fresh("a")?.value).toBe(1);
    now = 100;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.fresh("a")).toBeUndefined();
    expect(cache.peek("a")?.value).toBe(1);
  });

  test("keeps at most maxEntries, oldest out first; setting a key again makes it the newest", () => {
    const evicted: string[] = [];
    const cache = new ExpiringCache<string, number>({
      maxEntries: 3,
      now: () => 0,
      onEvict: (entry) => evicted.push(entry.key),
    });
    cache.set("a", 1, 10);
    cache.set("b", 2, 10);
    cache.set("c", 3, 10);
    cache.set("a", 4, 10);
    cache.set("d", 5, 10);
    expect(evicted).toEqual(["b"]);
    expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.get("d")]).toEqual([4, undefined, 3, 5]);
    expect(cache.size).toBe(3);
    cache.delete("a");
    cache.set("e", 6, 10);
    expect(evicted).toEqual(["b"]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  test("a value that lives twice the margin is due for one reload in its last margin; a shorter one never", () => {
    let now = 0;
    const cache = new ExpiringCache<string, number>({ maxEntries: 10, now: () => now, reloadAheadMs: 1000 });
    const long = cache.set("long", 1, 2000) as CacheEntry<string, number>;
    const short = cache.set("short", 2, 1999) as CacheEntry<string, number>;
    expect(cache.claimReload(long, 999)).toBe(false);
    expect(cache.claimReload(long, 1000)).toBe(true);
    expect(cache.claimReload(long, 1500)).toBe(false);
    expect(cache.claimReload(short, 1998)).toBe(false);
    now = 0;
    const none = new ExpiringCache<string, number>({ maxEntries: 10, now: () => now });
    expect(none.claimReload(none.set("x", 1, 10_000), 9_999)).toBe(false);
  });
});

describe("ExpiringCache.serve", () => {
  test("serves the value; the first call in the margin starts the one reload, the calls after it are served meanwhile", () => {
    const reloads: string[] = [];
    const cache = new ExpiringCache<string, number>({
      maxEntries: 10,
      now: () => 0,
      reloadAheadMs: 1000,
      reload: (entry) => reloads.push(entry.key),
    });
    const entry = cache.set("k", 7, 5000);
    expect(cache.serve(entry, 3999)).toBe(7);
    expect(reloads).toEqual([]);
    expect(cache.serve(entry, 4000)).toBe(7);
    expect(cache.serve(entry, 4500)).toBe(7);
    expect(reloads).toEqual(["k"]);
  });

  test("without a reload, or for a value too short-lived to reload ahead, serving starts nothing", () => {
    const plain = new ExpiringCache<string, number>({ maxEntries: 10, now: () => 0, reloadAheadMs: 1000 });
    const entry = plain.set("k", 1, 5000);
    expect(plain.serve(entry, 4500)).toBe(1);
    expect(plain.claimReload(entry, 4600)).toBe(false);
    const reloads: string[] = [];
    const short = new ExpiringCache<string, number>({
      maxEntries: 10,
      now: () => 0,
      reloadAheadMs: 1000,
      reload: (e) => reloads.push(e.key),
    });
    expect(short.serve(short.set("s", 2, 1500), 1400)).toBe(2);
    expect(reloads).toEqual([]);
  });
});

describe("SharedLoads", () => {
  test("concurrent callers of one key share one load; a finished load is forgotten", async () => {
    const loads = new SharedLoads<string, number>();
    let calls = 0;
    let release: (n: number) => void = () => {};
    const load = () => {
      calls++;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const first = loads.run("k", load);
    const second = loads.run("k", load);
    expect(loads.has("k")).toBe(true);
    expect(loads.get("k")).toBe(first);
    release(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(calls).toBe(1);
    expect(loads.has("k")).toBe(false);
  });

  test("a failed load is forgotten too", async () => {
    const loads = new SharedLoads<string, number>();
    await expect(loads.run("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(loads.has("k")).toBe(false);
    expect(await loads.run("k", () => Promise.resolve(1))).toBe(1);
  });
});
