import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { freePort } from "@junction/platform/testing/free-port";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import {
  ALICE,
  CALENDAR,
  type ProxyHarness,
  proxyRequestLog,
  rawProxyGet,
  rawUpstream,
  startProxyHarness,
} from "./proxy-kit.ts";

let h: ProxyHarness;
beforeAll(async () => {
  // A short upstream timeout so that 504 is quick to reach (JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS).
  h = await startProxyHarness({ env: { JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS: "400" } });
});
afterAll(async () => {
  await h.close();
});

async function errorOf(res: Response) {
  const text = await res.text();
  // One error body, never a stack trace.
  expect(text).not.toMatch(/\bat \S+:\d+:\d+|node_modules|\.ts:\d+/);
  return { status: res.status, ...JSON.parse(text).error } as {
    status: number;
    code: string;
    message: string;
    errors?: { path: string; message: string }[];
  };
}

describe("proxy errors", () => {
  test("unknown integration: 404 unknown_provider_config", async () => {
    const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { "provider-config-key": "nope" } }));
    expect(e).toMatchObject({ status: 404, code: "unknown_provider_config" });
  });

  test("unknown connection: 404 unknown_connection", async () => {
    const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { "connection-id": "nobody" } }));
    expect(e).toMatchObject({ status: 404, code: "unknown_connection" });
  });

  test("a missing header: 400 naming it; an empty one counts as missing", async () => {
    for (const [name, label] of [
      ["provider-config-key", "Provider-Config-Key"],
      ["connection-id", "Connection-Id"],
    ] as const) {
      for (const value of ["", "   "]) {
        const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { [name]: value } }));
        expect(e).toMatchObject({ status: 400, code: "invalid_headers" });
        expect(e.message).toContain(label);
        expect(e.errors?.map((x) => x.path)).toEqual([label]);
      }
    }
    const both = await errorOf(
      await h.proxy("GET", "/echo/x", { headers: { "provider-config-key": "", "connection-id": "" } }),
    );
    expect(both.message).toBe("Missing required headers Provider-Config-Key and Connection-Id.");
  });

  test("without the secret key: 401 before anything else", async () => {
    const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { authorization: "" } }));
    expect(e).toMatchObject({ status: 401, code: "missing_auth_header" });
    const wrong = await errorOf(await h.proxy("GET", "/echo/x", { headers: { authorization: "Bearer jct_sk_wrong" } }));
    expect(wrong).toMatchObject({ status: 401, code: "unknown_account" });
  });

  test("malformed Retries and Retry-On: 400 naming each", async () => {
    for (const [name, value] of [
      ["Retries", "-1"],
      ["Retries", "three"],
      ["Retry-On", "429;503"],
      ["Retry-On", "99"],
      ["Retry-On", "abc"],
    ] as const) {
      const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { [name]: value } }));
      expect(e).toMatchObject({ status: 400, code: "invalid_headers" });
      expect(e.errors?.map((x) => x.path)).toEqual([name]);
    }
  });

  test("an unsupported method: 405 listing the proxied ones", async () => {
    const res = await h.raw("/proxy/echo/x", { method: "TRACE" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, POST, PUT, PATCH, DELETE, OPTIONS");
  });

  test("a connection without credentials: 409 connection_has_no_credentials", async () => {
    await h.junction.clients.connection.createConnection({ providerConfigKey: CALENDAR, connectionId: "empty" });
    const e = await errorOf(await h.proxy("GET", "/echo/x", { headers: { "connection-id": "empty" } }));
    expect(e).toMatchObject({ status: 409, code: "connection_has_no_credentials" });
  });

  test("upstream unreachable: 502 upstream_unreachable naming the host, not the path or query", async () => {
    const port = await freePort();
    await h.addUpstream("down", `http://127.0.0.1:${port}`);
    const res = await h.proxy("GET", "/private/path?access_token=in-query", {
      headers: { "provider-config-key": "down", retries: "0" },
    });
    const e = await errorOf(res);
    expect(e).toMatchObject({ status: 502, code: "upstream_unreachable" });
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(e.message).not.toContain("/private/path");
    expect(e.message).not.toContain("in-query");
    expect(h.junction.logLines.join("\n")).not.toContain("in-query");
  });

  test("upstream timed out: 504 upstream_timeout", async () => {
    const started = performance.now();
    const e = await errorOf(await h.proxy("GET", "/slow/20000", { headers: { retries: "0" } }));
    expect(e).toMatchObject({ status: 504, code: "upstream_timeout" });
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  test("an upstream error passes through as it is (not a Junction error body)", async () => {
    const res = await h.proxy("GET", "/status/503", { headers: { retries: "0" } });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.message).toBe("Fake status 503");
    expect(body.error.code).toBe(503);
  });

  test("no error response carries the secret key or a token", async () => {
    const logs = h.junction.logLines.join("\n");
    expect(logs).not.toContain(TEST_SECRET_KEY);
    expect(logs).not.toContain(h.accessToken);
  });
});

describe("proxy errors: refresh failure (spec: Authentication 8; OAuth issue's refresh rule)", () => {
  let r: ProxyHarness;
  beforeAll(async () => {
    r = await startProxyHarness({ fake: { requireAuthOnEcho: true } });
  });
  afterAll(async () => {
    await r.close();
  });

  test("an upstream 401 whose refresh the upstream refuses: 424 connection_refresh_failed", async () => {
    r.fake.expireAccessTokens(ALICE);
    r.fake.setTokenEndpointBehavior({
      status: 400,
      body: { error: "invalid_grant", error_description: "Token has been expired or revoked." },
    });
    const e = await errorOf(await r.proxy("GET", "/calendar/v3/users/me/calendarList/primary"));
    expect(e).toMatchObject({ status: 424, code: "connection_refresh_failed" });
    expect(r.fake.state.tokenRequests.refresh_token).toBeGreaterThanOrEqual(1);
  });
});

describe("proxy: a caller that goes away", () => {
  let c: ProxyHarness;
  beforeAll(async () => {
    c = await startProxyHarness(); // the default upstream timeout, 60 s
  });
  afterAll(async () => {
    await c.close();
  });

  test("before the upstream answers: the upstream call ends within a fraction of a second, not at the timeout", async () => {
    // An upstream that never answers and says when its caller (Junction) went away.
    const arrived = Promise.withResolvers<void>();
    const left = Promise.withResolvers<number>();
    const upstream = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        req.signal.addEventListener("abort", () => left.resolve(performance.now()));
        arrived.resolve();
        return new Promise<Response>(() => {});
      },
    });
    try {
      await c.addUpstream("hangs", `http://127.0.0.1:${upstream.port}`);
      const socket = connect(c.junction.port, "127.0.0.1", () =>
        socket.write(rawProxyGet(c.junction.port, "hangs", "/wait")),
      );
      await arrived.promise;
      socket.destroy();
      const goneAt = performance.now();
      const guard = setTimeout(() => left.reject(new Error("the upstream call outlived its caller by 3 s")), 3_000);
      const endedAt = await left.promise.finally(() => clearTimeout(guard));
      expect(endedAt - goneAt).toBeLessThan(2_000);
      expect(await proxyRequestLog(c, "/wait")).toMatchObject({ status: 499 });
    } finally {
      upstream.stop(true);
    }
  });

  test("while a large answer is read ahead: the upstream connection is closed within a fraction of a second, and the request logged as 499", async () => {
    const arrived = Promise.withResolvers<void>();
    const upstream = await rawUpstream((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 50000\r\n\r\nfirst bytes");
      arrived.resolve();
    });
    try {
      await c.addUpstream("ahead-left", upstream.url);
      const socket = connect(c.junction.port, "127.0.0.1", () =>
        socket.write(rawProxyGet(c.junction.port, "ahead-left", "/left")),
      );
      await arrived.promise;
      socket.destroy();
      const goneAt = performance.now();
      await upstream.closed;
      expect(performance.now() - goneAt).toBeLessThan(2_000);
      expect(await proxyRequestLog(c, "/left")).toMatchObject({ status: 499 });
    } finally {
      upstream.stop();
    }
  });
});
