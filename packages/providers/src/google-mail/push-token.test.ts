import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { AdapterFetch } from "../adapter.ts";
import { type PushTokenExpectation, pushTokenChecker } from "./push-token.ts";

// The JWKS fetch of a Pub/Sub push: the address policy (https only, an operator-allowed private host
// aside), a streamed size cap, a negative cache with backoff, answers that name nothing, and `exp` required.

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const AUDIENCE = "https://junction.example/webhook/env_1/mail";

let privateKey: CryptoKey;
let server: ReturnType<typeof Bun.serve>;
const hits: string[] = [];
let hugeBytesSent = 0;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "key-1", alg: "RS256", use: "sig" };
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (path === "/certs") return Response.json({ keys: [jwk] });
      if (path === "/redirect-private") return Response.redirect("http://10.0.0.7/certs", 302);
      if (path === "/huge") {
        // 64 MiB in 64 KiB chunks, produced only as fast as they are read.
        const chunk = new Uint8Array(64 * 1024).fill(0x20);
        let left = 1024;
        return new Response(
          new ReadableStream({
            pull(controller) {
              if (left-- === 0) return controller.close();
              hugeBytesSent += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
        );
      }
      return new Response("nope", { status: 404 });
    },
  });
});
afterAll(() => server.stop(true));

const local = (path: string) => `http://127.0.0.1:${server.port}${path}`;
/** The webhook service's reader fetch: the policy's guard, https only; 127.0.0.1 allowed unless said otherwise. */
const guarded = (allowedHosts: string[] = ["127.0.0.1"], lookup = async () => ["142.250.74.42"]): AdapterFetch =>
  new OutboundAddressPolicy({ allowedHosts, lookup }).guard((i, init) => fetch(i, init), "provider_settings", {
    httpsOnly: true,
  });

function token(claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({
    iss: "https://accounts.google.com",
    aud: AUDIENCE,
    iat: Math.floor(NOW / 1000) - 60,
    exp: Math.floor(NOW / 1000) + 3600,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", kid: "key-1", typ: "JWT" })
    .sign(privateKey);
}

const expectation = (jwksUrl: string, fetchImpl: AdapterFetch, now = NOW): PushTokenExpectation => ({
  audience: AUDIENCE,
  serviceAccountEmail: "",
  jwksUrl,
  now,
  fetch: fetchImpl,
});

describe("the push token's JWKS fetch", () => {
  test("an operator-allowed local JWKS over http is fetched and verifies the token", async () => {
    const check = pushTokenChecker();
    expect(await check(await token(), expectation(local("/certs"), guarded()))).toEqual({ ok: true });
  });

  test.each([
    ["loopback not allowed", () => local("/certs"), () => guarded([])],
    ["a file", () => "file:///proc/self/environ", () => guarded()],
    ["a data: URL", () => "data:application/json,{}", () => guarded()],
    ["http to a public name", () => "http://keys.example.test/certs", () => guarded()],
    [
      "a name resolving to a private address",
      () => "https://keys.example.test/certs",
      () => guarded([], async () => ["10.0.0.7"]),
    ],
    ["the metadata address", () => "https://169.254.169.254/latest", () => guarded()],
    ["a redirect to a private address", () => local("/redirect-private"), () => guarded()],
  ])(
    "%s: refused 503, the answer names no file, host, port or reason of the network",
    async (_what, url, fetchImpl) => {
      const before = hits.filter((h) => h === "/certs").length;
      const result = await pushTokenChecker()(await token(), expectation(url(), fetchImpl()));
      expect(result).toEqual({
        ok: false,
        status: 503,
        code: "pubsub_keys_unavailable",
        message: "The token signing keys could not be fetched; retry later.",
      });
      expect(hits.filter((h) => h === "/certs").length).toBe(before);
    },
  );

  test("a 64 MiB answer is not read past 256 KiB", async () => {
    const result = await pushTokenChecker()(await token(), expectation(local("/huge"), guarded()));
    expect(result).toMatchObject({ ok: false, status: 503, code: "pubsub_keys_unavailable" });
    // The stream was cancelled at the cap: what the server produced is its socket buffers' worth at most,
    // far less than the 64 MiB a whole read would have pulled.
    expect(hugeBytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  test("a failure is cached with a backoff on the injected clock: pushes meanwhile do not fetch", async () => {
    const check = pushTokenChecker();
    let calls = 0;
    const failing: AdapterFetch = async () => {
      calls++;
      return new Response("down", { status: 500 });
    };
    const bearer = await token();
    for (const now of [NOW, NOW + 1_000, NOW + 4_999]) {
      expect(await check(bearer, expectation(local("/certs"), failing, now))).toMatchObject({ status: 503 });
    }
    expect(calls).toBe(1);
    // 5 s after the first failure, one more try; it fails again: the next wait is 10 s.
    await check(bearer, expectation(local("/certs"), failing, NOW + 5_000));
    expect(calls).toBe(2);
    await check(bearer, expectation(local("/certs"), failing, NOW + 14_999));
    expect(calls).toBe(2);
    expect(await check(bearer, expectation(local("/certs"), guarded(), NOW + 15_000))).toEqual({ ok: true });
  });

  test("a token without exp is refused 403", async () => {
    const bearer = await token({ exp: undefined });
    const result = await pushTokenChecker()(bearer, expectation(local("/certs"), guarded()));
    expect(result).toMatchObject({ ok: false, status: 403, code: "pubsub_token_invalid" });
  });
});
