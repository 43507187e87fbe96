import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { blobChunks, blobSha256, type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { freePort } from "@junction/platform/testing/free-port";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

/**
 * 100 MB each way through Junction running as its own process, so that its resident memory can be read
 * from /proc without the test's own buffers in it.
 */
const SIZE = 100 * 1024 * 1024;
/** Peak resident memory may grow by this much while 100 MB pass: buffering a body would need more. */
const GROWTH_BOUND = 32 * 1024 * 1024;
const SECRET = "jct_sk_streaming_test_0123456789abcdef";

let fake: FakeUpstream;
let junction: JunctionProcess;
let url = "";
const data = tempDir();

beforeAll(async () => {
  fake = await startFakeUpstream();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  junction = startJunctionProcess("embedded", ["start"], {
    PORT: String(port),
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_DATA_DIR: data.path,
    JUNCTION_SECRET_KEY: SECRET,
    JUNCTION_LOG_LEVEL: "warn",
    // The fake upstream is on 127.0.0.1: an operator's allow-list lets an integration point there.
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
  });
  await waitFor("Junction to listen", async () => (await fetch(`${url}/health`)).ok, 20_000, 50).catch((err) => {
    throw new Error(`${(err as Error).message}\n${junction.output()}`);
  });
  const api = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  await api("/integrations", {
    unique_key: "blob",
    provider: "google-mail",
    upstream_overrides: { base_url: fake.url },
  });
  const tokens = fake.issueTokens({});
  await api("/connections", {
    provider_config_key: "blob",
    connection_id: "c1",
    credentials: { type: "OAUTH2", access_token: tokens.accessToken },
  });
}, 30_000);

afterAll(async () => {
  await junction?.stop();
  await fake?.stop();
  data.remove();
});

const headers = { authorization: `Bearer ${SECRET}`, "provider-config-key": "blob", "connection-id": "c1" };

/** The fake's blob pattern as an upload stream, generated as it is read. */
function uploadOf(size: number): ReadableStream<Uint8Array> {
  const chunks = blobChunks(size);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

/** Peak resident set size of the Junction process since the last `resetPeakRss` (VmHWM), in bytes. */
function peakRss(): number {
  const status = readFileSync(`/proc/${junction.proc.pid}/status`, "utf8");
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new Error("no VmHWM in /proc status");
  return Number(kb) * 1024;
}

/** Starts a new peak from the current resident set (so that no earlier test's peak hides this one's); returns it. */
function resetPeakRss(): number {
  writeFileSync(`/proc/${junction.proc.pid}/clear_refs`, "5");
  return peakRss();
}

async function digest(stream: ReadableStream<Uint8Array>): Promise<{ bytes: number; sha256: string }> {
  const hash = new Bun.CryptoHasher("sha256");
  let bytes = 0;
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    hash.update(next.value);
    bytes += next.value.byteLength;
  }
  return { bytes, sha256: hash.digest("hex") };
}

describe("proxy: streaming with bounded memory", () => {
  test("warm-up: a small call of each direction", async () => {
    const down = await fetch(`${url}/proxy/blob/${1024 * 1024}`, { headers });
    expect((await digest(down.body as ReadableStream<Uint8Array>)).bytes).toBe(1024 * 1024);
    const up = await fetch(`${url}/proxy/blob/sink`, {
      method: "POST",
      headers,
      body: uploadOf(2 * 1024 * 1024),
      duplex: "half",
    } as RequestInit);
    expect((await up.json()).bytes).toBe(2 * 1024 * 1024);
  });

  test("a 100 MB response streams through byte for byte", async () => {
    const before = resetPeakRss();
    const res = await fetch(`${url}/proxy/blob/${SIZE}`, { headers });
    expect(res.status).toBe(200);
    expect(await digest(res.body as ReadableStream<Uint8Array>)).toEqual({ bytes: SIZE, sha256: blobSha256(SIZE) });
    const growth = peakRss() - before;
    console.log(`peak RSS growth for 100 MB down: ${(growth / 1048576).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(GROWTH_BOUND);
  }, 60_000);

  test("a caller that stops reading holds the upstream back: memory stays bounded, nothing is lost", async () => {
    const before = resetPeakRss();
    const res = await fetch(`${url}/proxy/blob/${SIZE}`, { headers });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const hash = new Bun.CryptoHasher("sha256");
    let bytes = 0;
    let paused = false;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      hash.update(next.value);
      bytes += next.value.byteLength;
      if (!paused && bytes >= 8 * 1024 * 1024) {
        // A slow caller, not a wait for an event: without backpressure, Junction would take in the
        // rest of the 100 MB from the local upstream in this time and hold it.
        paused = true;
        await Bun.sleep(500);
      }
    }
    expect({ bytes, sha256: hash.digest("hex") }).toEqual({ bytes: SIZE, sha256: blobSha256(SIZE) });
    const growth = peakRss() - before;
    console.log(`peak RSS growth for 100 MB down to a caller that paused: ${(growth / 1048576).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(GROWTH_BOUND);
  }, 60_000);

  test("a 100 MB upload of unknown length streams through byte for byte", async () => {
    const before = resetPeakRss();
    const res = await fetch(`${url}/proxy/blob/sink`, {
      method: "POST",
      headers,
      body: uploadOf(SIZE),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bytes: SIZE, sha256: blobSha256(SIZE) });
    const growth = peakRss() - before;
    console.log(`peak RSS growth for 100 MB up (chunked): ${(growth / 1048576).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(GROWTH_BOUND);
  }, 60_000);

  test("a 100 MB upload with a Content-Length streams through and keeps its length", async () => {
    const before = resetPeakRss();
    const res = await fetch(`${url}/proxy/echo/upload`, {
      method: "PUT",
      headers: { ...headers, "content-length": String(SIZE) },
      body: uploadOf(SIZE),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    const echoed = await res.json();
    expect(echoed).toMatchObject({ bodyLength: SIZE, bodySha256: blobSha256(SIZE) });
    expect(echoed.headers["content-length"]).toBe(String(SIZE));
    expect(echoed.headers["transfer-encoding"]).toBeUndefined();
    const growth = peakRss() - before;
    console.log(`peak RSS growth for 100 MB up (with length): ${(growth / 1048576).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(GROWTH_BOUND);
  }, 60_000);
});
