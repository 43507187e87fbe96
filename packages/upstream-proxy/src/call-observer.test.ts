import { afterEach, describe, expect, test } from "bun:test";
import { type Clock, createLogger, systemClock } from "@junction/platform";
import { readUpstreamRequest, type UpstreamRequest } from "./proxy-controls.ts";
import { DEFAULT_PROXY_SETTINGS } from "./proxy-settings.ts";
import { NO_BODY } from "./request-body.ts";
import type { ResolvedUpstream } from "./resolve-cache.ts";
import { parseBase } from "./upstream-url.ts";
import { createUpstreamProxy, type ProxyCallObserver, type ProxyCaller } from "./upstream-proxy.ts";

const HEADERS = { "provider-config-key": "cal", "connection-id": "alice" };
let upstream: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => upstream?.stop(true));

type Told = [kind: "answered" | "failed", what: unknown, startedAtMs: number, endedAtMs: number];

/** Each read of the time is 10 ms after the previous one; timers run on real time (the retries' waits). */
function steppingClock(startMs: number): Clock {
  let now = startMs;
  return { now: () => (now += 10), setTimer: systemClock.setTimer };
}

/** The engine over a local upstream, watched by an observer that notes what it is told. */
function watchedEngine(
  answer: (req: Request) => Response,
  options: {
    resolve?: (forceRefresh: boolean) => Promise<ResolvedUpstream>;
    observer?: Partial<ProxyCallObserver>;
  } = {},
) {
  upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: answer });
  const baseUrl = `http://127.0.0.1:${upstream.port}`;
  const told: Told[] = [];
  const callers: Array<[UpstreamRequest, ProxyCaller]> = [];
  const resolved = (token: string): ResolvedUpstream => ({
    baseUrl,
    base: parseBase(baseUrl),
    headers: { authorization: `Bearer ${token}` },
    cacheUntil: Date.now() + 60_000,
    allowedOverrideHosts: [],
    provider: "",
    channels: undefined,
  });
  const proxy = createUpstreamProxy({
    clock: steppingClock(1_000),
    settings: DEFAULT_PROXY_SETTINGS,
    resolve: async (_key, forceRefresh) =>
      options.resolve ? options.resolve(forceRefresh) : resolved(forceRefresh ? "fresh" : "stale"),
    reportChannelCall: async () => undefined,
    observer: {
      answered(request, caller, status, startedAtMs, endedAtMs) {
        callers.push([request, caller]);
        told.push(["answered", status, startedAtMs, endedAtMs]);
        options.observer?.answered?.(request, caller, status, startedAtMs, endedAtMs);
      },
      failed(request, caller, err, startedAtMs, endedAtMs) {
        callers.push([request, caller]);
        told.push(["failed", err, startedAtMs, endedAtMs]);
      },
    },
  });
  const request = readUpstreamRequest(HEADERS, "GET", "/items", "", true, NO_BODY);
  const caller: ProxyCaller = {
    environmentId: "env_1",
    headers: HEADERS,
    req: { signal: new AbortController().signal },
    requestId: "req_1",
    logger: createLogger({ level: "error" }),
  };
  return { call: () => proxy(request, caller), told, callers, request, caller, resolved };
}

describe("the proxy engine's observer (the operations log's proxy calls)", () => {
  test("is told once, with the status the caller gets, after a refresh and retry; on the engine's clock", async () => {
    const engine = watchedEngine((req) =>
      req.headers.get("authorization") === "Bearer fresh"
        ? Response.json({ ok: true })
        : new Response("expired", { status: 401 }),
    );
    const res = await engine.call();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    // The start is the request's first read of the clock, the end a later one.
    expect(engine.told).toEqual([["answered", 200, 1_010, expect.any(Number)]]);
    expect(engine.told[0]?.[3]).toBeGreaterThan(1_010);
    expect(engine.callers[0]?.[0]).toBe(engine.request);
    expect(engine.callers[0]?.[1]).toBe(engine.caller);
  });

  test("an upstream's 404 is an answer told as it is", async () => {
    const engine = watchedEngine(() => new Response("no such item", { status: 404 }));
    expect((await engine.call()).status).toBe(404);
    expect(engine.told.map(([kind, what]) => [kind, what])).toEqual([["answered", 404]]);
  });

  test("a request that throws is told as failed with what it throws, once", async () => {
    const refused = new Error("unknown_connection");
    const engine = watchedEngine(() => new Response("never asked"), { resolve: () => Promise.reject(refused) });
    const thrown = await engine.call().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(thrown).toBe(refused);
    expect(engine.told).toEqual([["failed", refused, 1_010, 1_020]]);
  });

  test("an observer that throws is not heard: the caller still gets the answer, and no failure is told", async () => {
    const engine = watchedEngine(() => Response.json({ ok: true }), {
      observer: {
        answered() {
          throw new Error("observer bug");
        },
      },
    });
    const res = await engine.call();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(engine.told.map(([kind, what]) => [kind, what])).toEqual([["answered", 200]]);
  });
});
