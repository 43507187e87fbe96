import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { createHttpSender, parseRetryAfter, SNIPPET_BYTES } from "./http-sender.ts";

let server: ReturnType<typeof Bun.serve>;
let base = "";
const seen: Array<{ path: string; headers: Record<string, string>; body: string }> = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => {
        headers[k] = v;
      });
      seen.push({ path: url.pathname, headers, body: await req.text() });
      if (url.pathname === "/ok") return new Response("thanks", { status: 202 });
      if (url.pathname === "/fail") return new Response("x".repeat(5000), { status: 500 });
      if (url.pathname === "/slow") return new Promise((r) => setTimeout(() => r(new Response("late")), 2000));
      if (url.pathname === "/limited")
        return new Response("slow down", { status: 429, headers: { "retry-after": "42" } });
      if (url.pathname === "/redirect") return Response.redirect(`${base}/ok`, 302);
      return new Response("?", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const body = new TextEncoder().encode('{"a":1}');
const post = (send: ReturnType<typeof createHttpSender>, url: string, timeoutMs = 2000) =>
  send({ url, headers: { "content-type": "application/json", "webhook-id": "msg_x" }, body, timeoutMs });

describe("createHttpSender", () => {
  const lenient = createHttpSender({ allowPrivate: true });

  test("posts the exact body and headers; a 2xx is a success with its snippet and latency", async () => {
    const r = await post(lenient, `${base}/ok`);
    expect(r).toMatchObject({ statusCode: 202, responseSnippet: "thanks", error: null, retryAfterMs: null });
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    const last = seen[seen.length - 1];
    expect(last?.body).toBe('{"a":1}');
    expect(last?.headers["webhook-id"]).toBe("msg_x");
  });

  test("a non-2xx fails with its status, and the snippet is cut", async () => {
    const r = await post(lenient, `${base}/fail`);
    expect(r.statusCode).toBe(500);
    expect(r.error).toBe("HTTP 500");
    expect(r.responseSnippet.length).toBeLessThanOrEqual(SNIPPET_BYTES);
    expect(r.responseSnippet.length).toBeGreaterThan(0);
  });

  test("does not follow redirects", async () => {
    const before = seen.filter((s) => s.path === "/ok").length;
    const r = await post(lenient, `${base}/redirect`);
    expect(r).toMatchObject({ statusCode: 302, error: "HTTP 302" });
    expect(seen.filter((s) => s.path === "/ok").length).toBe(before);
  });

  test("a 429 carries its Retry-After", async () => {
    expect(await post(lenient, `${base}/limited`)).toMatchObject({ statusCode: 429, retryAfterMs: 42_000 });
  });

  test("times out with status 0", async () => {
    const r = await post(lenient, `${base}/slow`, 200);
    expect(r).toMatchObject({ statusCode: 0, error: "timed out after 200 ms" });
  });

  test("a refused connection is a failure with status 0", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/x`;
    closed.stop(true);
    const r = await post(lenient, url);
    expect(r.statusCode).toBe(0);
    expect(r.error).toMatch(/^connection failed: /);
  });

  test("refuses loopback and private addresses unless allowed, without a request", async () => {
    const strict = createHttpSender({ allowPrivate: false });
    const before = seen.length;
    for (const url of [`${base}/ok`, "https://10.0.0.1/x", "https://[::1]/x", "https://169.254.169.254/latest"]) {
      const r = await post(strict, url);
      expect(r.statusCode).toBe(0);
      expect(r.error).toMatch(/^refused: /);
    }
    expect(seen.length).toBe(before);
  });

  test("checks a DNS name's resolved addresses at connect time", async () => {
    const resolved: string[] = [];
    const strict = createHttpSender({
      allowPrivate: false,
      resolve: async (host) => {
        resolved.push(host);
        return host === "rebind.example.test"
          ? [
              { address: "93.184.216.34", family: 4 },
              { address: "127.0.0.1", family: 4 },
            ]
          : [{ address: "10.20.30.40", family: 4 }];
      },
    });
    for (const host of ["internal.example.test", "rebind.example.test"]) {
      const r = await post(strict, `https://${host}/hooks`);
      expect(r.statusCode).toBe(0);
      expect(r.error).toContain(`refused: ${host} resolves to`);
    }
    expect(resolved).toEqual(["internal.example.test", "rebind.example.test"]);
  });

  test("addresses one of the two old classifiers missed are refused, as literals and as resolved", async () => {
    // 198.18.0.1 (benchmarking) was missed by the webhook's list, 64:ff9b::a00:1 (NAT64 of 10.0.0.1) by the proxy's.
    for (const address of ["198.18.0.1", "192.0.0.8", "64:ff9b::a00:1"]) {
      const family = address.includes(":") ? 6 : 4;
      const strict = createHttpSender({ allowPrivate: false, resolve: async () => [{ address, family }] });
      const resolved = await post(strict, "https://hooks.example.test/in");
      expect(resolved.error).toBe(
        `refused: hooks.example.test resolves to ${address}, a private, loopback or link-local address`,
      );
      const literal = await post(strict, `https://${family === 6 ? `[${address}]` : address}/in`);
      expect(literal.error).toBe("refused: the endpoint URL points to a private, loopback or link-local address");
    }
  });

  test("a DNS name resolving to an allowed address is connected to that address", async () => {
    let connections = 0;
    const tcp = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", () => resolve()));
    const port = (tcp.address() as AddressInfo).port;
    try {
      const sender = createHttpSender({
        allowPrivate: true,
        resolve: async () => [{ address: "127.0.0.1", family: 4 }],
      });
      const r = await post(sender, `https://hooks.example.test:${port}/ok`);
      // The name resolved to 127.0.0.1 and the connection reached it (the fake hangs up before TLS).
      expect(connections).toBe(1);
      expect(r.statusCode).toBe(0);
      expect(r.error).not.toContain("refused");
    } finally {
      tcp.close();
    }
  });
});

describe("parseRetryAfter", () => {
  test("reads delta-seconds and HTTP dates; null for anything else", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
  });
});
