import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { blobSha256, rawHttpRequest } from "./index.ts";
import { useFakeUpstreams } from "./fake-upstream-test-kit.ts";

const { start } = useFakeUpstreams();

describe("proxy test helpers", () => {
  test("echoes the request path byte for byte, encoded dot segments included", async () => {
    const fake = await start();
    const target = "/echo/calendars/alice%40example.com/%2e%2e/%2E%2E/events?q=a%20b&x=%2F";
    const response = await rawHttpRequest(fake.port, target, {
      method: "POST",
      body: "hello",
      headers: { "x-probe": "1" },
    });
    const echoed = JSON.parse(response.body);
    expect(echoed.path).toBe("/echo/calendars/alice%40example.com/%2e%2e/%2E%2E/events");
    expect(echoed.query).toBe("q=a%20b&x=%2F");
    expect(echoed).toMatchObject({ method: "POST", bodyLength: 5, headers: { "x-probe": "1" } });
    expect(echoed.bodySha256).toBe(createHash("sha256").update("hello").digest("hex"));
    expect(fake.requestCount("/echo/calendars/alice%40example.com/%2e%2e/%2E%2E/events")).toBe(1);
  });

  test("streams a 10 MB blob with the expected bytes", async () => {
    const fake = await start();
    const size = 10 * 1024 * 1024;
    const response = await fetch(`${fake.url}/blob/${size}`);
    expect(response.headers.get("content-length")).toBe(String(size));
    const hash = createHash("sha256");
    let bytes = 0;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      hash.update(next.value);
      bytes += next.value.byteLength;
    }
    expect(bytes).toBe(size);
    expect(hash.digest("hex")).toBe(blobSha256(size));
  });

  test("hashes a streamed upload in the sink", async () => {
    const fake = await start();
    const size = 10 * 1024 * 1024;
    const download = await fetch(`${fake.url}/blob/${size}`);
    const sink = await fetch(`${fake.url}/blob/sink`, {
      method: "POST",
      body: download.body,
      duplex: "half",
    } as RequestInit);
    expect(await sink.json()).toEqual({ bytes: size, sha256: blobSha256(size) });
  });

  test("fails n times per flaky key, then succeeds", async () => {
    const fake = await start();
    const call = (key: string) => fetch(`${fake.url}/flaky/2?retryAfter=1`, { headers: { "x-flaky-key": key } });
    const first = await call("a");
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect((await call("a")).status).toBe(503);
    expect((await call("a")).status).toBe(200);
    expect((await call("b")).status).toBe(503);
  });

  test("answers the requested status and delays slow requests", async () => {
    const fake = await start();
    expect((await fetch(`${fake.url}/status/429?retryAfter=3`)).headers.get("retry-after")).toBe("3");
    expect((await fetch(`${fake.url}/status/204`)).status).toBe(204);
    const started = performance.now();
    expect(await (await fetch(`${fake.url}/slow/50`)).json()).toEqual({ delayedMs: 50 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  test("requires a token on helpers only when asked to", async () => {
    const fake = await start({ requireAuthOnEcho: true });
    expect((await fetch(`${fake.url}/echo/x`)).status).toBe(401);
    const { accessToken } = fake.issueTokens({});
    expect((await fetch(`${fake.url}/echo/x`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(
      200,
    );
  });
});
