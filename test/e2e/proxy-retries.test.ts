import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock, type TimerHandle } from "@junction/platform";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

/** Short backoff (at most 50 ms) and a Retry-After bound of 1.5 s. */
const RETRY_ENV = {
  JUNCTION_PROXY_RETRY_BASE_DELAY_MS: "5",
  JUNCTION_PROXY_RETRY_MAX_DELAY_MS: "50",
  JUNCTION_PROXY_MAX_RETRY_AFTER_MS: "1500",
};

let h: ProxyHarness;
let keySeq = 0;
/** A fresh x-flaky-key, so that each test's /flaky counter starts at zero. */
const flakyKey = () => ({ "x-flaky-key": `k${++keySeq}` });

beforeAll(async () => {
  h = await startProxyHarness({ env: RETRY_ENV });
});
afterAll(async () => {
  await h.close();
});

/** How many requests the fake upstream of `on` got on a path since `from`. */
const attemptsSince = (from: number, path: string, on: ProxyHarness = h) =>
  on.fake.state.requests.slice(from).filter((r) => r.path === path).length;

describe("proxy retries", () => {
  test("an idempotent call is retried on 5xx with backoff until it succeeds", async () => {
    const from = h.fake.state.requests.length;
    const res = await h.proxy("GET", "/flaky/2", { headers: flakyKey() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, attempt: 3 });
    expect(attemptsSince(from, "/flaky/2")).toBe(3);
  });

  test("when the retries run out, the last upstream answer passes through as it is", async () => {
    const from = h.fake.state.requests.length;
    const res = await h.proxy("GET", "/flaky/5", { headers: flakyKey() });
    expect(res.status).toBe(503);
    expect((await res.json()).error.message).toBe("Flaky failure 3 of 5");
    expect(attemptsSince(from, "/flaky/5")).toBe(3);
  });

  test("Retries sets the number of retries; Retries: 0 turns them off", async () => {
    let from = h.fake.state.requests.length;
    const four = await h.proxy("GET", "/flaky/4", { headers: { ...flakyKey(), retries: "4" } });
    expect(four.status).toBe(200);
    expect(attemptsSince(from, "/flaky/4")).toBe(5);
    from = h.fake.state.requests.length;
    const none = await h.proxy("GET", "/flaky/1", { headers: { ...flakyKey(), retries: "0" } });
    expect(none.status).toBe(503);
    expect(attemptsSince(from, "/flaky/1")).toBe(1);
  });

  for (const method of ["POST", "PATCH"]) {
    test(`${method} is not retried unless the caller asks`, async () => {
      const from = h.fake.state.requests.length;
      const res = await h.proxy(method, "/flaky/1", { headers: flakyKey(), body: "{}" });
      expect(res.status).toBe(503);
      expect(attemptsSince(from, "/flaky/1")).toBe(1);
    });

    test(`${method} is retried when the caller sends Retries`, async () => {
      const from = h.fake.state.requests.length;
      const res = await h.proxy(method, "/flaky/1", { headers: { ...flakyKey(), retries: "2" }, body: "{}" });
      expect(res.status).toBe(200);
      expect(attemptsSince(from, "/flaky/1")).toBe(2);
    });
  }

  test("POST is retried when the caller sends Retry-On", async () => {
    const from = h.fake.state.requests.length;
    const res = await h.proxy("POST", "/flaky/1", { headers: { ...flakyKey(), "retry-on": "503" }, body: "{}" });
    expect(res.status).toBe(200);
    expect(attemptsSince(from, "/flaky/1")).toBe(2);
  });

  test("Retry-On adds statuses to retry on; others are not retried", async () => {
    let from = h.fake.state.requests.length;
    const conflict = await h.proxy("GET", "/status/409", { headers: { "retry-on": "409, 423", retries: "2" } });
    expect(conflict.status).toBe(409);
    expect(attemptsSince(from, "/status/409")).toBe(3);
    from = h.fake.state.requests.length;
    const notFound = await h.proxy("GET", "/status/404", { headers: { "retry-on": "409", retries: "2" } });
    expect(notFound.status).toBe(404);
    expect(attemptsSince(from, "/status/404")).toBe(1);
  });

  test("429 is retried", async () => {
    const from = h.fake.state.requests.length;
    const res = await h.proxy("GET", "/status/429", { headers: { retries: "1" } });
    expect(res.status).toBe(429);
    expect(attemptsSince(from, "/status/429")).toBe(2);
  });

  test("a streamed body of unknown length is sent once: it cannot be sent again", async () => {
    const from = h.fake.state.requests.length;
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("chunked"));
        c.close();
      },
    });
    const res = await h.proxy("POST", "/flaky/1", { headers: { ...flakyKey(), retries: "3" }, body });
    expect(res.status).toBe(503);
    expect(attemptsSince(from, "/flaky/1")).toBe(1);
  });
});

/** A manual clock that remembers the length of every wait set on it, so a test knows when one began. */
class RecordingClock extends ManualClock {
  readonly waits: number[] = [];

  override setTimer(fn: () => void, ms: number): TimerHandle {
    this.waits.push(ms);
    return super.setTimer(fn, ms);
  }
}

describe("proxy retries: Retry-After, on the injected clock", () => {
  let m: ProxyHarness;
  const clock = new RecordingClock();
  beforeAll(async () => {
    m = await startProxyHarness({ clock, env: RETRY_ENV });
  });
  afterAll(async () => {
    await m.close();
  });

  /**
   * Sends `path`, waits until the proxy has begun a wait of `expectedMs` after the first attempt, then
   * moves the clock to 1 ms short of it (no second attempt) and onto it (the second attempt).
   */
  async function retriedAfter(path: string, headers: Record<string, string>, expectedMs: number) {
    const from = m.fake.state.requests.length;
    const waitsFrom = clock.waits.length;
    const answer = m.proxy("GET", path, { headers });
    await waitFor(`a wait of ${expectedMs} ms`, () => clock.waits.slice(waitsFrom).includes(expectedMs));
    const upstreamPath = path.split("?")[0] as string;
    await clock.advance(expectedMs - 1);
    expect(attemptsSince(from, upstreamPath, m)).toBe(1);
    await clock.advance(1);
    const res = await answer;
    expect(attemptsSince(from, upstreamPath, m)).toBe(2);
    return res;
  }

  test("Retry-After is honoured: the next attempt waits what the upstream asked, not the backoff", async () => {
    // The backoff alone would be at most 50 ms here.
    const res = await retriedAfter("/flaky/1?retryAfter=1", { "x-flaky-key": "after-1" }, 1000);
    expect(res.status).toBe(200);
  });

  test("Retry-After is clamped: an hour becomes the configured bound (1.5 s here)", async () => {
    const res = await retriedAfter("/status/503?retryAfter=3600", { retries: "1" }, 1500);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("3600");
  });
});

describe("proxy retries: network errors", () => {
  let server: Server;
  let seen = 0;
  let failFirst = 0;
  beforeAll(async () => {
    // An upstream whose connection drops without an answer for the first `failFirst` requests.
    server = createServer((req, res) => {
      seen++;
      if (seen <= failFirst) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ seen }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    await h.addUpstream("dropping", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test("a dropped connection is retried for GET", async () => {
    seen = 0;
    failFirst = 2;
    const res = await h.proxy("GET", "/x", { headers: { "provider-config-key": "dropping" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ seen: 3 });
  });

  test("a dropped connection is not retried for POST unless asked: 502", async () => {
    seen = 0;
    failFirst = 1;
    const res = await h.proxy("POST", "/x", { headers: { "provider-config-key": "dropping" }, body: "{}" });
    expect(res.status).toBe(502);
    expect((await res.json()).error.code).toBe("upstream_unreachable");
    expect(seen).toBe(1);
  });
});

describe("proxy: an upstream 401 causes one refresh and one retry", () => {
  let r: ProxyHarness;
  beforeAll(async () => {
    r = await startProxyHarness({ fake: { requireAuthOnEcho: true } });
  });
  afterAll(async () => {
    await r.close();
  });

  test("the token is refreshed and the call retried with the new one, body included", async () => {
    const before = r.fake.state.tokenRequests.refresh_token;
    r.fake.expireAccessTokens(ALICE);
    const res = await r.proxy("POST", "/echo/after-401", { body: "same body twice" });
    expect(res.status).toBe(200);
    const echoed = await res.json();
    expect(echoed.headers.authorization).not.toBe(`Bearer ${r.accessToken}`);
    expect(echoed.bodyLength).toBe("same body twice".length);
    expect(r.fake.state.tokenRequests.refresh_token).toBe(before + 1);
    expect(r.fake.requestCount("/echo/after-401")).toBe(2);
  });

  test("a burst of calls hitting 401 together costs one refresh", async () => {
    const before = r.fake.state.tokenRequests.refresh_token;
    r.fake.expireAccessTokens(ALICE);
    const all = await Promise.all(Array.from({ length: 8 }, () => r.proxy("GET", "/echo/burst")));
    expect(all.map((x) => x.status)).toEqual(Array(8).fill(200));
    expect(r.fake.state.tokenRequests.refresh_token).toBe(before + 1);
  });

  test("a 401 that persists after the refresh passes through (one retry, not a loop)", async () => {
    const before = r.fake.state.tokenRequests.refresh_token;
    const from = r.fake.state.requests.length;
    const res = await r.proxy("GET", "/status/401");
    expect(res.status).toBe(401);
    expect(r.fake.state.requests.slice(from).filter((q) => q.path === "/status/401").length).toBe(2);
    expect(r.fake.state.tokenRequests.refresh_token).toBe(before + 1);
  });
});
