import { describe, expect, test } from "bun:test";
import { JunctionError } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { Authenticator } from "./authenticate.ts";

function fakeClients(valid: Set<string>) {
  const calls: string[] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  const clients = {
    connection: {
      async verifySecretKey({ secretKey }: { secretKey: string }) {
        calls.push(secretKey);
        await gate;
        return valid.has(secretKey)
          ? { valid: true, environmentId: "env_1", keyId: "key_1", keyName: "ci-bot" }
          : { valid: false };
      },
    },
  } as unknown as GatewayClients;
  return {
    clients,
    calls,
    hold() {
      gate = new Promise((r) => {
        release = r;
      });
    },
    release: () => release?.(),
  };
}

const req = (key: string) => new Request("http://x/", { headers: { authorization: `Bearer ${key}` } });

describe("Authenticator", () => {
  test("concurrent requests with one key share one verification", async () => {
    const fake = fakeClients(new Set(["k1"]));
    fake.hold();
    const auth = new Authenticator(fake.clients);
    const all = Promise.all(Array.from({ length: 50 }, () => auth.authenticate(req("k1"))));
    fake.release();
    expect(await all).toEqual(Array(50).fill("env_1"));
    expect(fake.calls).toHaveLength(1);
  });

  test("serves a cached key, re-verifies once in the background near expiry, and drops a revoked key", async () => {
    const valid = new Set(["k1"]);
    const fake = fakeClients(valid);
    let now = 0;
    const auth = new Authenticator(fake.clients, () => now);
    await auth.authenticate(req("k1"));
    now = 3000;
    await auth.authenticate(req("k1"));
    expect(fake.calls).toHaveLength(1);

    now = 4500; // within the refresh-ahead window: served from cache, one background check
    await Promise.all([auth.authenticate(req("k1")), auth.authenticate(req("k1"))]);
    await Bun.sleep(0);
    expect(fake.calls).toHaveLength(2);

    valid.delete("k1"); // revoked
    now = 4500 + 5001;
    await expect(auth.authenticate(req("k1"))).rejects.toThrow(JunctionError);
  });

  test("the grant names the key (id and name), verified once then answered synchronously from the cache", async () => {
    const fake = fakeClients(new Set(["k1"]));
    const auth = new Authenticator(fake.clients);
    const first = await auth.grantOfHeader("Bearer k1");
    expect(first).toMatchObject({ environmentId: "env_1", key: { id: "key_1", name: "ci-bot" } });
    const cached = auth.grantOfHeader("Bearer k1");
    expect(cached).not.toBeInstanceOf(Promise);
    expect((cached as typeof first).key).toBe(first.key);
    expect(fake.calls).toHaveLength(1);
  });

  test("never caches an invalid key", async () => {
    const fake = fakeClients(new Set());
    const auth = new Authenticator(fake.clients);
    await expect(auth.authenticate(req("bad"))).rejects.toThrow("not valid");
    await expect(auth.authenticate(req("bad"))).rejects.toThrow("not valid");
    expect(fake.calls).toHaveLength(2);
  });

  test("reads the key from the header value the gateway read once, as from the request", async () => {
    const fake = fakeClients(new Set(["k1"]));
    const auth = new Authenticator(fake.clients);
    expect(await auth.environmentOfHeader("Bearer k1")).toBe("env_1");
    // Cached now: answered without a promise, as on the proxy's hot path.
    expect(auth.environmentOfHeader("Bearer k1")).toBe("env_1");
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as JunctionError).code;
      }
      return "no error";
    };
    expect(code(() => auth.environmentOfHeader(undefined))).toBe("missing_auth_header");
    expect(code(() => auth.environmentOfHeader("  "))).toBe("missing_auth_header");
    // Two Authorization headers read as one value joined with ", " (as Headers#get gives it): not a bearer key.
    expect(code(() => auth.environmentOfHeader(["Bearer k1", "Bearer k2"]))).toBe("malformed_auth_header");
    expect(fake.calls).toEqual(["k1"]);
  });

  test("each header is read as its own, the same one again or another after it", async () => {
    const fake = fakeClients(new Set(["k1", "k2"]));
    const auth = new Authenticator(fake.clients);
    const headers = ["Bearer k1", "Bearer k1", "bearer   k2 ", "Bearer k1", "Bearer k 1", "Bearer k2", "Bearer k3"];
    const answers: string[] = [];
    for (const header of headers) {
      try {
        answers.push(await auth.environmentOfHeader(header));
      } catch (err) {
        answers.push((err as JunctionError).code);
      }
    }
    expect(answers).toEqual(["env_1", "env_1", "env_1", "env_1", "malformed_auth_header", "env_1", "unknown_account"]);
    expect(fake.calls).toEqual(["k1", "k2", "k3"]);
  });
});
