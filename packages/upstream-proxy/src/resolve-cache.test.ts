import { describe, expect, test } from "bun:test";
import { parseBase } from "./upstream-url.ts";
import { ResolveCache, type ResolvedUpstream, type ResolveKey } from "./resolve-cache.ts";

const key: ResolveKey = { environmentId: "env_1", providerConfigKey: "cal", connectionId: "alice" };

const peek = (cache: ResolveCache, k: ResolveKey) => cache.peek(k.environmentId, k.providerConfigKey, k.connectionId);

function harness() {
  let now = 1_000;
  let token = 0;
  const calls: boolean[] = [];
  let gate: Promise<void> = Promise.resolve();
  const cache = new ResolveCache(
    async (_k, force) => {
      calls.push(force);
      await gate;
      if (force || token === 0) token++;
      return answer(`t${token}`, now + 5_000);
    },
    () => now,
  );
  return {
    cache,
    calls,
    advance: (ms: number) => {
      now += ms;
    },
    hold() {
      let release!: () => void;
      gate = new Promise((r) => {
        release = r;
      });
      return () => release();
    },
  };
}

function answer(token: string, cacheUntil: number): ResolvedUpstream {
  return {
    baseUrl: "https://api.example",
    base: parseBase("https://api.example"),
    headers: { authorization: `Bearer ${token}` },
    cacheUntil,
    allowedOverrideHosts: [],
    provider: "",
    channels: undefined,
  };
}

describe("resolve cache", () => {
  test("reuses an answer until its cache_until, then asks again", async () => {
    const h = harness();
    await h.cache.get(key);
    await h.cache.get(key);
    expect(h.calls).toEqual([false]);
    h.advance(5_000);
    await h.cache.get(key);
    expect(h.calls).toEqual([false, false]);
  });

  test("keys by environment, integration and connection", async () => {
    const h = harness();
    await h.cache.get(key);
    await h.cache.get({ ...key, connectionId: "bob" });
    await h.cache.get({ ...key, providerConfigKey: "mail" });
    await h.cache.get({ ...key, environmentId: "env_2" });
    expect(h.calls.length).toBe(4);
  });

  test("concurrent misses share one call", async () => {
    const h = harness();
    const release = h.hold();
    const all = Promise.all([h.cache.get(key), h.cache.get(key), h.cache.get(key)]);
    release();
    expect(new Set(await all).size).toBe(1);
    expect(h.calls).toEqual([false]);
  });

  test("a burst of 401s forces one refresh; later ones use the new answer", async () => {
    const h = harness();
    const stale = await h.cache.get(key);
    const release = h.hold();
    const refreshed = Promise.all([h.cache.refresh(key, stale), h.cache.refresh(key, stale)]);
    release();
    const [a, b] = await refreshed;
    expect(a).toBe(b);
    expect(a.headers.authorization).toBe("Bearer t2");
    expect(await h.cache.refresh(key, stale)).toBe(a);
    expect(await h.cache.get(key)).toBe(a);
    expect(h.calls).toEqual([false, true]);
  });

  test("an ordinary answer overtaken by a forced refresh does not bring the old token back", async () => {
    const h = harness();
    const stale = await h.cache.get(key);
    h.advance(6_000);
    const release = h.hold();
    const ordinary = h.cache.get(key);
    const forced = h.cache.refresh(key, stale);
    release();
    await Promise.all([ordinary, forced]);
    expect((await h.cache.get(key)).headers.authorization).toBe("Bearer t2");
  });

  test("failures are not kept", async () => {
    let fail = true;
    const cache = new ResolveCache(
      async () => {
        if (fail) throw new Error("unknown_connection");
        return answer("t", Number.MAX_SAFE_INTEGER);
      },
      () => 0,
    );
    await expect(cache.get(key)).rejects.toThrow("unknown_connection");
    fail = false;
    expect((await cache.get(key)).headers.authorization).toBe("Bearer t");
  });
});

describe("forgetting an answer", () => {
  test("the next request resolves again even though the answer was still fresh", async () => {
    const h = harness();
    await h.cache.get(key);
    await h.cache.get(key);
    expect(h.calls).toEqual([false]);
    h.cache.forget(key);
    await h.cache.get(key);
    expect(h.calls).toEqual([false, false]);
  });
});

describe("loading ahead", () => {
  /** A cache whose every load answers a new token, valid `lifetime` ms from the load; loads can be held or failed. */
  function aheadHarness(lifetime = 5_000) {
    let now = 1_000;
    let loads = 0;
    let fail = false;
    let gate: Promise<void> = Promise.resolve();
    const cache = new ResolveCache(
      async () => {
        loads++;
        const n = loads;
        await gate;
        if (fail) throw new Error("connection service unavailable");
        return answer(`t${n}`, now + lifetime);
      },
      () => now,
    );
    return {
      cache,
      loads: () => loads,
      at: (ms: number) => {
        now = 1_000 + ms;
      },
      failLoads: () => {
        fail = true;
      },
      hold() {
        let release!: () => void;
        gate = new Promise((r) => {
          release = r;
        });
        return () => release();
      },
    };
  }
  const token = (a: ResolvedUpstream | undefined) => a?.headers.authorization;
  /** Lets a released load settle (its promise chain runs before the next event-loop turn). */
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  test("in an answer's last second, it is still served while one load of the next one runs", async () => {
    const h = aheadHarness();
    await h.cache.get(key);
    h.at(3_999);
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    expect(h.loads()).toBe(1);

    const release = h.hold();
    h.at(4_000);
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    expect(token(await h.cache.get(key))).toBe("Bearer t1");
    expect(h.loads()).toBe(2);
    release();
    await nextTurn();
    expect(token(peek(h.cache, key))).toBe("Bearer t2");
    expect(h.loads()).toBe(2);
  });

  test("never serves an answer past its end, even with its successor still loading", async () => {
    const h = aheadHarness();
    await h.cache.get(key);
    const release = h.hold();
    h.at(4_500);
    peek(h.cache, key);
    h.at(5_000);
    expect(peek(h.cache, key)).toBeUndefined();
    const next = h.cache.get(key);
    release();
    expect(token(await next)).toBe("Bearer t2");
    expect(h.loads()).toBe(2);
  });

  test("an answer shorter-lived than twice the margin is not loaded ahead", async () => {
    const h = aheadHarness(1_500);
    await h.cache.get(key);
    h.at(1_000);
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    expect(h.loads()).toBe(1);
  });

  test("a failed load ahead leaves the current answer in place until its end, and is not retried meanwhile", async () => {
    const h = aheadHarness();
    await h.cache.get(key);
    h.failLoads();
    h.at(4_200);
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    await nextTurn();
    h.at(4_900);
    expect(token(peek(h.cache, key))).toBe("Bearer t1");
    expect(h.loads()).toBe(2);
    h.at(5_000);
    await expect(h.cache.get(key)).rejects.toThrow("connection service unavailable");
  });

  test("keeps each (environment, integration, connection) apart, and at most 10 000 answers, oldest out first", async () => {
    const now = 1_000;
    const loaded: string[] = [];
    const cache = new ResolveCache(
      async (k) => {
        loaded.push(`${k.environmentId}/${k.providerConfigKey}/${k.connectionId}`);
        return answer(`t-${k.environmentId}-${k.providerConfigKey}-${k.connectionId}`, now + 60_000);
      },
      () => now,
    );
    const keys: ResolveKey[] = [
      { environmentId: "env_1", providerConfigKey: "cal", connectionId: "alice" },
      { environmentId: "env_2", providerConfigKey: "cal", connectionId: "alice" },
      { environmentId: "env_1", providerConfigKey: "mail", connectionId: "alice" },
      { environmentId: "env_1", providerConfigKey: "cal", connectionId: "bob" },
    ];
    for (const k of keys) await cache.get(k);
    for (const k of keys) {
      expect(token(peek(cache, k))).toBe(`Bearer t-${k.environmentId}-${k.providerConfigKey}-${k.connectionId}`);
    }
    expect(peek(cache, { environmentId: "env_2", providerConfigKey: "mail", connectionId: "bob" })).toBeUndefined();

    for (let i = 0; i < 9_997; i++)
      await cache.get({ environmentId: "env_3", providerConfigKey: "cal", connectionId: `u${i}` });
    // 10 001 answers were loaded: the first one went, the second is still there.
    expect(peek(cache, keys[0] as ResolveKey)).toBeUndefined();
    expect(token(peek(cache, keys[1] as ResolveKey))).toBe("Bearer t-env_2-cal-alice");
    expect(loaded.length).toBe(10_001);
  });
});
