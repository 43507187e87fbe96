import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { CALENDAR, CONNECTION, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

let h: ProxyHarness;
/** A server standing for "another host": nothing may ever reach it through the proxy. */
let canary: ReturnType<typeof Bun.serve>;
let canaryHits = 0;
let other = "";

beforeAll(async () => {
  h = await startProxyHarness();
  canary = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      canaryHits++;
      return new Response("canary");
    },
  });
  other = `127.0.0.1:${canary.port}`;
});
afterAll(async () => {
  canary.stop(true);
  await h.close();
});

/** Every path the fake upstream was asked for since `from`. */
const upstreamPathsSince = (from: number) => h.fake.state.requests.slice(from).map((r) => r.path);
const DOT_SEGMENT = /(^|\/)(\.|\.\.|%2e|%2e%2e|\.%2e|%2e\.)(\/|$)/i;

describe("proxy safety: refused with 400 over a raw socket", () => {
  const refused: [string, string][] = [
    ["an encoded backslash traversal", "/proxy/echo%5c..%5cadmin"],
    ["an encoded backslash", "/proxy/echo/%5Cadmin"],
    ["//host in the path", `/proxy//${"OTHER"}/x`],
    ["an encoded //host", `/proxy/%2f%2f${"OTHER"}/x`],
    ["an absolute URL in the path", `/proxy/http://${"OTHER"}/x`],
    ["an absolute URL with encoded slashes", `/proxy/http:%2f%2f${"OTHER"}/x`],
    ["a scheme without slashes", "/proxy/https:evil.example"],
    ["@ where the authority would be", `/proxy/@${"OTHER"}/x`],
    ["user info before a host", `/proxy/user:pw@${"OTHER"}/x`],
    ["an encoded @ where the authority would be", `/proxy/%40${"OTHER"}/x`],
    ["a traversal with an encoded slash", "/proxy/echo/..%2fadmin"],
    ["a fully encoded traversal with a slash", "/proxy/echo/%2e%2e%2fadmin"],
    ["a double-encoded traversal", "/proxy/echo/%252e%252e/admin"],
    ["a triple-encoded traversal", "/proxy/echo/%25252e%25252e/admin"],
    ["a trailing .. (resolved to /proxy/)", "/proxy/echo/.."],
    ["an encoded NUL", "/proxy/echo/a%00b"],
    ["encoded CRLF in the path", "/proxy/echo/a%0d%0aInjected:%201"],
    ["an empty upstream path", "/proxy/"],
  ];
  for (const [what, template] of refused) {
    test(what, async () => {
      const from = h.fake.state.requests.length;
      const res = await h.raw(template.replaceAll("OTHER", other));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("invalid_proxy_path");
      expect(upstreamPathsSince(from)).toEqual([]);
    });
  }

  test("CR or LF inside a header value: the server refuses the request with 400", async () => {
    for (const value of ["a\rInjected: 1", "a\nInjected: 1", "a\0b"]) {
      const from = h.fake.state.requests.length;
      const raw = await rawLines([
        "GET /proxy/echo/crlf HTTP/1.1",
        `Host: 127.0.0.1:${h.junction.port}`,
        `Authorization: Bearer ${TEST_SECRET_KEY}`,
        `Provider-Config-Key: ${CALENDAR}`,
        `Connection-Id: ${CONNECTION}`,
        `Nango-Proxy-X-Note: ${value}`,
        "Connection: close",
      ]);
      expect(raw.split("\r\n")[0]).toContain(" 400 ");
      expect(upstreamPathsSince(from)).toEqual([]);
    }
  });

  test("nothing above ever reached another host", () => {
    expect(canaryHits).toBe(0);
  });
});

describe("proxy safety: what Bun.serve resolves before Junction sees it stays on the upstream", () => {
  // Bun.serve 1.4.5 resolves `..`, `.`, their %2e spellings and `\` in the request target (WHATWG URL
  // parsing) before any handler runs, so Junction cannot refuse them. What it guarantees instead: the
  // resolved path is routed, and under /proxy/ it is appended to the upstream base, so it cannot
  // leave it; above /proxy/ it names one of Junction's own routes (same secret key), and nothing is
  // sent upstream. These tests pin that behaviour; if a Bun release passes raw targets, the path
  // checks answer 400 instead (see packages/upstream-proxy/src/upstream-path.test.ts).
  const stayingOnUpstream: [string, string, string][] = [
    ["a %2e%2e traversal after an encoded @", "/proxy/echo/a%40b/%2e%2e/x", "/echo/x"],
    ["a .%2e traversal", "/proxy/echo/a/.%2e/x", "/echo/x"],
    ["a backslash traversal", "/proxy/echo/a\\..\\x", "/echo/x"],
    ["a single-dot segment", "/proxy/echo/./x", "/echo/x"],
    ["an absolute-form request target naming another host", `http://OTHER/proxy/echo/x`, "/echo/x"],
    ["a fragment", "/proxy/echo/x#/../../y", "/echo/x"],
  ];
  for (const [what, template, expected] of stayingOnUpstream) {
    test(`${what}: 400, or resolved to ${expected} on the integration's upstream`, async () => {
      const from = h.fake.state.requests.length;
      const res = await h.raw(template.replaceAll("OTHER", other));
      if (res.status === 400) return;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).path).toBe(expected);
      const seen = upstreamPathsSince(from);
      expect(seen).toEqual([expected]);
      for (const p of seen) expect(DOT_SEGMENT.test(p)).toBe(false);
    });
  }

  test("a traversal above /proxy/ never reaches the upstream: it is one of Junction's routes, same key", async () => {
    for (const target of ["/proxy/../integrations", "/proxy/%2e%2e/integrations", "/proxy/echo/..\\..\\integrations"]) {
      const from = h.fake.state.requests.length;
      const res = await h.raw(target);
      expect([200, 400]).toContain(res.status);
      if (res.status === 200) expect(JSON.parse(res.body).data[0].unique_key).toBeDefined();
      expect(upstreamPathsSince(from)).toEqual([]);
    }
    const unauthenticated = await h.raw("/proxy/../integrations", { headers: { authorization: "" } });
    expect(unauthenticated.status).toBe(401);
  });

  test("nothing above ever reached another host", () => {
    expect(canaryHits).toBe(0);
  });
});

describe("proxy safety: Base-Url-Override", () => {
  test("a URL under the integration's own base is allowed", async () => {
    const res = await h.proxy("GET", "/x?q=1", { headers: { "base-url-override": `${h.fake.url}/echo/prefix` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: "/echo/prefix/x", query: "q=1" });
  });

  test("an empty Base-Url-Override counts as absent", async () => {
    const res = await h.proxy("GET", "/echo/empty", { headers: { "base-url-override": "" } });
    expect(res.status).toBe(200);
    expect((await res.json()).path).toBe("/echo/empty");
  });

  const refused: [string, string][] = [
    ["loopback on another port", "http://OTHER"],
    ["the same loopback server under another name", "http://localhost:FAKEPORT"],
    ["a private address", "http://10.0.0.7"],
    ["link-local metadata", "http://169.254.169.254/latest"],
    ["IPv6 loopback", "http://[::1]:FAKEPORT"],
    ["an IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]:FAKEPORT"],
    ["a host the provider does not list", "https://evil.example"],
    ["an allowed host with user info", "https://www.googleapis.com@OTHER"],
    ["user info on an allowed host", "https://user:pw@www.googleapis.com"],
    ["an allowed host on plain http", "http://www.googleapis.com"],
    ["an allowed host on another port", "https://www.googleapis.com:8443"],
    ["another scheme", "ftp://www.googleapis.com"],
    ["a query", "https://www.googleapis.com/?x=1"],
    ["a traversal out of the integration's base", "FAKE/echo/%2e%2e/x"],
    ["not a URL", "www.googleapis.com"],
  ];
  for (const [what, template] of refused) {
    test(`refused with 400: ${what}`, async () => {
      const override = template
        .replaceAll("OTHER", other)
        .replaceAll("FAKEPORT", String(h.fake.port))
        .replaceAll("FAKE", h.fake.url);
      const from = h.fake.state.requests.length;
      const res = await h.proxy("GET", "/echo/x", { headers: { "base-url-override": override } });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("base_url_override_not_allowed");
      expect(body.error.errors[0].path).toBe("Base-Url-Override");
      expect(upstreamPathsSince(from)).toEqual([]);
    });
  }

  test("nothing above ever reached another host", () => {
    expect(canaryHits).toBe(0);
  });
});

describe("proxy safety: secrets", () => {
  test("the secret key, tokens and client secret appear in no response of Junction's and no log line", async () => {
    const responses = [
      await h.proxy("GET", "/echo/../x"),
      await h.proxy("GET", "/status/500", { headers: { retries: "0" } }),
      await h.proxy("GET", "/echo/x", { headers: { "connection-id": "nobody" } }),
      await h.proxy("GET", "/echo/x", { headers: { "base-url-override": "https://evil.example" } }),
      await h.proxy("GET", "/echo/x", { headers: { "provider-config-key": "" } }),
      await h.proxy("GET", "/status/401"),
    ];
    const texts = await Promise.all(responses.map((r) => r.text()));
    const logs = h.junction.logLines.join("\n");
    for (const secret of [TEST_SECRET_KEY, h.accessToken, h.refreshToken, "client-secret-1"]) {
      for (const t of texts) expect(t).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    for (const t of texts) expect(t).not.toMatch(/\bat \S+:\d+:\d+/);
  });
});

/** Sends header lines as written (a raw header value may hold a CR, LF or NUL), returns the raw answer. */
function rawLines(lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(h.junction.port, "127.0.0.1", () => socket.write(`${lines.join("\r\n")}\r\n\r\n`));
    let out = "";
    socket.on("data", (d) => {
      out += d.toString("latin1");
    });
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}
