import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { ALICE, MAIL, type ProxyHarness, proxyRequestLog, startProxyHarness } from "./proxy-kit.ts";

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
});

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("proxy: forwarding (spec: Proxy rules 1–3)", () => {
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
    test(`${method}: path and query reach the upstream byte for byte, with the connection's token`, async () => {
      const body = method === "GET" ? undefined : `{"method":"${method}"}`;
      const res = await h.proxy(method, "/echo/calendars/alice%40example.com/x@y/%7Ez?q=a%20b&e=%2F&at=a@b", {
        headers: { "content-type": "application/json", "x-custom": "kept" },
        body,
      });
      expect(res.status).toBe(200);
      const echoed = await res.json();
      expect(echoed.method).toBe(method);
      expect(echoed.path).toBe("/echo/calendars/alice%40example.com/x@y/%7Ez");
      expect(echoed.query).toBe("q=a%20b&e=%2F&at=a@b");
      expect(echoed.headers.authorization).toBe(`Bearer ${h.accessToken}`);
      expect(echoed.headers["x-custom"]).toBe("kept");
      if (body) {
        expect(echoed.bodyLength).toBe(body.length);
        expect(echoed.bodySha256).toBe(sha256(body));
        expect(echoed.headers["content-type"]).toBe("application/json");
      }
    });
  }

  test("HEAD: the upstream's status and headers, no body", async () => {
    const res = await h.raw("/proxy/echo/head", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("application/json");
    expect(res.body).toBe("");
    expect(h.fake.requestCount("/echo/head")).toBe(1);
  });

  test("X-Request-Id: an upstream's answer gets the caller's own id back, and no id of Junction's; Junction's own answers always have one", async () => {
    const plain = await h.proxy("GET", "/echo/request-id-plain");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-request-id")).toBeNull();
    await plain.arrayBuffer();
    // Correlating is still there: the caller's id is echoed, and logged with the request.
    const tagged = await h.proxy("GET", "/echo/request-id-tagged", { headers: { "x-request-id": "caller-req-7" } });
    expect(tagged.headers.get("x-request-id")).toBe("caller-req-7");
    await tagged.arrayBuffer();
    expect(await proxyRequestLog(h, "/echo/request-id-tagged")).toMatchObject({
      requestId: "caller-req-7",
      status: 200,
    });
    expect(String((await proxyRequestLog(h, "/echo/request-id-plain")).requestId)).toMatch(/^req_/);
    // An answer Junction makes itself (here a 404 for an unknown connection) carries a generated id.
    const refused = await h.proxy("GET", "/echo/request-id-plain", { headers: { "connection-id": "nobody" } });
    expect(refused.status).toBe(404);
    expect(refused.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("the caller's secret key and Junction's own headers never reach the upstream; hop-by-hop ones neither", async () => {
    const res = await h.proxy("POST", "/echo/headers", {
      headers: {
        retries: "0",
        "retry-on": "409",
        decompress: "false",
        "x-request-id": "req-from-caller",
        "nango-is-sync": "true",
        "nango-is-script": "false",
        "nango-is-dry-run": "false",
        "forward-headers-on-redirect": "true",
        "nango-activity-log-id": "log-1",
        "proxy-authorization": "Basic c2VjcmV0",
        te: "trailers",
        "keep-alive": "timeout=5",
        connection: "keep-alive, x-drop-me",
        "x-drop-me": "listed in Connection",
      },
      body: "x",
    });
    const echoed = await res.json();
    const names = Object.keys(echoed.headers);
    for (const own of [
      "provider-config-key",
      "connection-id",
      "retries",
      "retry-on",
      "decompress",
      "x-request-id",
      "nango-is-sync",
      "nango-is-script",
      "nango-is-dry-run",
      "forward-headers-on-redirect",
      "nango-activity-log-id",
      "proxy-authorization",
      "te",
      "keep-alive",
      "x-drop-me",
    ]) {
      expect(names).not.toContain(own);
    }
    expect(JSON.stringify(echoed)).not.toContain(TEST_SECRET_KEY);
    expect(echoed.headers.authorization).toBe(`Bearer ${h.accessToken}`);
  });

  test("Nango-Proxy-*: the prefix is stripped, the header forwarded, and it may override the injected token", async () => {
    const res = await h.proxy("GET", "/echo/nango", {
      headers: {
        "Nango-Proxy-X-Goog-Api-Client": "scripts/1.0",
        "Nango-Proxy-Authorization": "Bearer caller-chosen",
        "x-goog-api-client": "plain header, overridden",
      },
    });
    const echoed = await res.json();
    expect(echoed.headers["x-goog-api-client"]).toBe("scripts/1.0");
    expect(echoed.headers.authorization).toBe("Bearer caller-chosen");
    expect(Object.keys(echoed.headers).some((n) => n.startsWith("nango-proxy-"))).toBe(false);
  });

  test("Nango-Proxy-Host and other connection headers cannot be forwarded: 400 naming the header", async () => {
    for (const name of ["Nango-Proxy-Host", "Nango-Proxy-Content-Length", "Nango-Proxy-Transfer-Encoding"]) {
      const res = await h.proxy("GET", "/echo/x", { headers: { [name]: "1" } });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("invalid_headers");
      expect(body.error.errors[0].path).toBe(name.toLowerCase());
    }
  });

  test("upstream errors pass through as they are: status, headers and body", async () => {
    const direct = await fetch(`${h.fake.url}/status/404`);
    const res = await h.proxy("GET", "/status/404");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe(direct.headers.get("content-type"));
    expect(await res.text()).toBe(await direct.text());
    const teapot = await h.proxy("POST", "/status/418", { body: "{}" });
    expect(teapot.status).toBe(418);
    expect((await teapot.json()).error.message).toBe("Fake status 418");
  });

  for (const status of [204, 304]) {
    test(`${status} stays bodiless`, async () => {
      const res = await h.raw(`/proxy/status/${status}`);
      expect(res.status).toBe(status);
      expect(res.body).toBe("");
      expect(res.headers["transfer-encoding"]).toBeUndefined();
    });
  }

  test("the mail profile call of the spec works unchanged", async () => {
    const res = await h.proxy("GET", "/gmail/v1/users/me/profile", { headers: { "provider-config-key": MAIL } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ emailAddress: ALICE, messagesTotal: 0, threadsTotal: 0 });
  });

  test("the calendar calls of the scripts work unchanged: primary calendar, watch, events, stop", async () => {
    const primary = await h.proxy("GET", "/calendar/v3/users/me/calendarList/primary");
    expect(primary.status).toBe(200);
    expect((await primary.json()).id).toBe(ALICE);

    const watch = await h.proxy("POST", `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "chan-forwarding-1",
        type: "web_hook",
        address: `${h.junction.baseUrl}/webhook/env/cal`,
        expiration: String(Date.now() + 7 * 24 * 3_600_000),
      }),
    });
    expect(watch.status).toBe(200);
    const channel = await watch.json();
    expect(channel.resourceUri).toContain("/calendar/v3/calendars/alice%40example.com/events");

    const events = await h.proxy("GET", `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events?maxResults=5`);
    expect(events.status).toBe(200);
    expect(Array.isArray((await events.json()).items)).toBe(true);

    const stop = await h.proxy("POST", "/calendar/v3/channels/stop", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "chan-forwarding-1", resourceId: channel.resourceId }),
    });
    expect(stop.status).toBe(204);
    const again = await h.proxy("POST", "/calendar/v3/channels/stop", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "chan-forwarding-1", resourceId: channel.resourceId }),
    });
    expect(again.status).toBe(404);
  });
});

describe("proxy: Decompress", () => {
  let compressing: ReturnType<typeof Bun.serve>;
  const text = "hello from a compressing upstream ".repeat(50);
  beforeAll(async () => {
    // A third-party upstream that always answers gzip, as some APIs do.
    compressing = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(gzipSync(text), { headers: { "content-encoding": "gzip", "content-type": "text/plain" } }),
    });
    await h.addUpstream("gzip", `http://127.0.0.1:${compressing.port}`);
  });
  afterAll(() => compressing.stop(true));

  test("without it the compressed bytes and their Content-Encoding pass through unchanged", async () => {
    const res = await h.raw("/proxy/anything", { headers: { "provider-config-key": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.body).not.toContain("hello");
  });

  test("Decompress: true answers the decompressed body without Content-Encoding", async () => {
    const res = await h.raw("/proxy/anything", { headers: { "provider-config-key": "gzip", decompress: "true" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.body).toBe(text);
  });

  test("an empty Decompress counts as absent; a wrong one is a 400 naming it", async () => {
    const empty = await h.raw("/proxy/anything", { headers: { "provider-config-key": "gzip", decompress: "" } });
    expect(empty.headers["content-encoding"]).toBe("gzip");
    const wrong = await h.proxy("GET", "/anything", { headers: { "provider-config-key": "gzip", decompress: "yes" } });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toMatchObject({ code: "invalid_headers", errors: [{ path: "Decompress" }] });
  });
});

describe("proxy: redirects", () => {
  let redirecting: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    // An upstream that redirects elsewhere: following it would carry the connection's token there.
    redirecting = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response(null, { status: 302, headers: { location: `${h.fake.url}/echo/followed` } }),
    });
    await h.addUpstream("redirecting", `http://127.0.0.1:${redirecting.port}`);
  });
  afterAll(() => redirecting.stop(true));

  test("a redirect is handed back to the caller, never followed", async () => {
    const res = await h.proxy("GET", "/somewhere", { headers: { "provider-config-key": "redirecting" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${h.fake.url}/echo/followed`);
    expect(h.fake.requestCount("/echo/followed")).toBe(0);
  });
});
