import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type ProxyHarness, rawProxyGet, rawUpstream, startProxyHarness } from "./proxy-kit.ts";

/**
 * 2xx answers of a known length between 14 KiB and 64 KiB are read ahead before Junction answers
 * (packages/upstream-proxy/src/read-ahead.ts). What that path must keep: every byte, status and header, one
 * framing, an error (never a clean shorter body) when the upstream breaks off, and the upstream
 * timeout while it waits for the first chunks (the caller's departure then: proxy-errors.test.ts).
 */

const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) % 251);

/** The raw answer to a GET of /proxy{path} for integration `key`: its head's lines and its body bytes. */
function rawAnswer(port: number, key: string, path: string): Promise<{ head: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(rawProxyGet(port, key, path, ["connection: close"])));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      resolve({ head: all.subarray(0, split).toString("latin1").split("\r\n"), body: all.subarray(split + 4) });
    });
  });
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.subarray(at, eol).toString("latin1"), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness({ env: { JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS: "400" } });
});
afterAll(async () => {
  await h.close();
});

describe("proxy: answers of 14 KiB to 64 KiB, read ahead", () => {
  test("a 50 KB answer comes back byte for byte, with its status, headers and cookies; X-Request-Id only when the caller sent one", async () => {
    const body = pattern(50_000);
    const upstream = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        const headers = new Headers({ "content-type": "application/octet-stream", etag: '"v1"', "x-upstream": "yes" });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/");
        return new Response(body, { status: 203, headers });
      },
    });
    try {
      await h.addUpstream("ahead-big", `http://127.0.0.1:${upstream.port}`);
      const res = await h.proxy("GET", "/big", { headers: { "provider-config-key": "ahead-big" } });
      expect(res.status).toBe(203);
      expect(res.headers.get("etag")).toBe('"v1"');
      expect(res.headers.get("x-upstream")).toBe("yes");
      expect(res.headers.get("content-type")).toBe("application/octet-stream");
      expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
      expect(res.headers.get("x-request-id")).toBeNull();
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(body);
      const tagged = await h.proxy("GET", "/big", {
        headers: { "provider-config-key": "ahead-big", "x-request-id": "caller-50k" },
      });
      expect(tagged.headers.get("x-request-id")).toBe("caller-50k");
      expect(new Uint8Array(await tagged.arrayBuffer())).toEqual(body);
    } finally {
      upstream.stop(true);
    }
  });

  test("one framing on the wire: a single Content-Length equal to the body, or chunked without one", async () => {
    // Read ahead (20 KiB, 50 KB) and passed on as fetch gave them (100 KB, 300 KB).
    for (const size of [20 * 1024, 50_000, 100_000, 300_000]) {
      const body = pattern(size);
      const upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body) });
      try {
        const key = `ahead-framing-${size}`;
        await h.addUpstream(key, `http://127.0.0.1:${upstream.port}`);
        const { head, body: wire } = await rawAnswer(h.junction.port, key, "/f");
        expect(head[0]).toBe("HTTP/1.1 200 OK");
        const lengths = head.filter((l) => /^content-length:/i.test(l));
        const chunked = head.some((l) => /^transfer-encoding:\s*chunked/i.test(l));
        if (chunked) {
          expect(lengths).toEqual([]);
          expect(new Uint8Array(dechunk(wire))).toEqual(body);
        } else {
          expect(lengths.map((l) => l.split(":")[1]?.trim())).toEqual([String(size)]);
          expect(new Uint8Array(wire)).toEqual(body);
        }
      } finally {
        upstream.stop(true);
      }
    }
  });

  test("an upstream that breaks off mid-body, read ahead or passed on as it came: the caller never gets a clean, shorter body", async () => {
    // 60 000 bytes are read ahead; 250 000 are above READ_AHEAD_UP_TO_BYTES and passed on natively.
    for (const [length, chunk] of [
      [60_000, 16 * 1024],
      [250_000, 64 * 1024],
    ] as const) {
      const upstream = await rawUpstream(async (socket) => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${length}\r\n\r\n`);
        for (let i = 0; i < 3; i++) {
          socket.write(Buffer.from(pattern(chunk)));
          await Bun.sleep(20); // separate writes, so that Junction answers before the break
        }
        socket.destroy();
      });
      try {
        const key = `broken-${length}`;
        await h.addUpstream(key, upstream.url);
        const res = await h.proxy("GET", "/broken", { headers: { "provider-config-key": key, retries: "0" } });
        if (res.status === 200) {
          // The answer had started: its body must end in an error, not look complete.
          const ending = await res.arrayBuffer().then(
            (b) => `complete, ${b.byteLength} bytes`,
            () => "an error",
          );
          expect({ length, ending }).toEqual({ length, ending: "an error" });
        } else {
          // It broke before Junction answered: a gateway error with a code, no stack trace.
          expect({ length, status: res.status }).toEqual({ length, status: 502 });
          expect((await res.json()).error.code).toBe("upstream_unreachable");
        }
      } finally {
        upstream.stop();
      }
    }
  });

  test("an upstream that breaks off before its first chunks are in: 502 saying so, no stack trace, no path", async () => {
    const upstream = await rawUpstream(async (socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 50000\r\n\r\nfirst bytes");
      await Bun.sleep(20); // after Junction has the headers
      socket.destroy();
    });
    try {
      await h.addUpstream("ahead-cut", upstream.url);
      const res = await h.proxy("GET", "/cut/secret-path", {
        headers: { "provider-config-key": "ahead-cut", retries: "0" },
      });
      expect(res.status).toBe(502);
      const text = await res.text();
      expect(JSON.parse(text).error).toMatchObject({
        code: "upstream_unreachable",
        message: expect.stringContaining("broke off its answer"),
      });
      expect(text).not.toContain("secret-path");
      expect(text).not.toMatch(/\bat \S+:\d+:\d+|\.ts:\d+/);
    } finally {
      upstream.stop();
    }
  });

  test("an upstream that stalls after its first bytes: 504 upstream_timeout, and its connection is closed", async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 50000\r\n\r\nfirst bytes");
    });
    try {
      await h.addUpstream("ahead-stall", upstream.url);
      const res = await h.proxy("GET", "/stall", { headers: { "provider-config-key": "ahead-stall", retries: "0" } });
      expect(res.status).toBe(504);
      expect((await res.json()).error.code).toBe("upstream_timeout");
      await upstream.closed;
    } finally {
      upstream.stop();
    }
  });
});
