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
        return valid.has(secretKey) ? { valid: true, environmentId: "env_1", keyId: "key_1" } : { valid: false };
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

  test("never caches an invalid key", async () => {
    const fake = fakeClients(new Set());
    const auth = new Authenticator(fake.clients);
    await expect(auth.authenticate(req("bad"))).rejects.toThrow("not valid");
    await expect(auth.authenticate(req("bad"))).rejects.toThrow("not valid");
    expect(fake.calls).toHaveLength(2);
  });
});
