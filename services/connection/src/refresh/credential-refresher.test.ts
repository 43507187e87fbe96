import { describe, expect, test } from "bun:test";
import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";
import { bodyOf, CLIENT, useOAuthHarness } from "../../testing/oauth-test-kit.ts";

const harness = useOAuthHarness();
const HOUR = 3600_000;

describe("token refresh", () => {
  test("50 concurrent callers on an expired token cause one token request, and all get the new token", async () => {
    const h = await harness.start({ fake: { tokenDelayMs: 150 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const ref = { providerConfigKey: "cal", connectionId };
    const old = (await h.client.getCredentials(ref)).credentials?.accessToken;
    await h.clock.advance(HOUR);

    const results = await Promise.all(Array.from({ length: 50 }, () => h.client.getCredentials(ref)));
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
    const tokens = new Set(results.map((r) => r.credentials?.accessToken));
    expect(tokens.size).toBe(1);
    expect(tokens.has(old)).toBe(false);
    expect(Number(results[0]?.credentials?.expiresAtMs)).toBe(h.clock.now() + 3599_000);
    // The upstream kept the refresh token and sent none back: the stored one is kept.
    expect(results[0]?.credentials?.refreshToken).toMatch(/./);
  });

  test("refreshes within the margin before expiry, not earlier", async () => {
    const h = await harness.start({ oauth: { refreshMarginMs: 5 * 60_000 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const ref = { providerConfigKey: "cal", connectionId };
    await h.clock.advance(3599_000 - 5 * 60_000 - 1000);
    await h.client.getCredentials(ref);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(0);
    await h.clock.advance(2000);
    await h.client.getCredentials(ref);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
  });

  test("two service instances on one SQLite file share the lease: one token request between them", async () => {
    const h = await harness.start({ fake: { tokenDelayMs: 150 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const other = await harness.start({ path: h.path });
    // The second instance shares the file and talks to the same fake on the same clock.
    const ref = { providerConfigKey: "cal", connectionId };
    const clocks = [h.clock, other.clock];
    for (const c of clocks) await c.advance(HOUR);
    const calls = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? h : other).client.getCredentials(ref));
    const results = await Promise.all(calls);
    expect(h.fake.state.tokenRequests.refresh_token + other.fake.state.tokenRequests.refresh_token).toBe(1);
    expect(new Set(results.map((r) => r.credentials?.accessToken)).size).toBe(1);
  });

  test("a holder that died blocks others only until its lease expires", async () => {
    const h = await harness.start({ oauth: { refreshLeaseTtlMs: 30_000 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const envId = (await h.client.getEnvironment({})).environment?.id ?? "";
    const rec = await h.store.getConnection(envId, "cal", connectionId);
    await h.clock.advance(HOUR);
    // A process took the lease and died.
    expect(
      await h.store.acquireLease(`refresh:${rec?.id}`, "dead-process", h.clock.now(), h.clock.now() + 30_000),
    ).toBe(true);
    let attempts = 0;
    const acquire = h.store.acquireLease.bind(h.store);
    h.store.acquireLease = async (...args) => {
      attempts++;
      return acquire(...args);
    };
    const pending = h.client.getCredentials({ providerConfigKey: "cal", connectionId });
    const deadline = Date.now() + 5000;
    while (attempts < 3) {
      if (Date.now() > deadline) throw new Error("the refresher did not retry the lease");
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(h.fake.state.tokenRequests.refresh_token).toBe(0);
    await h.clock.advance(30_000);
    const fresh = await pending;
    expect(fresh.credentials?.accessToken).toMatch(/./);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
  });

  test("a forced refresh replaces a token that still looks fresh", async () => {
    const h = await harness.start();
    await h.integration();
    const { connectionId } = await h.connect();
    const ref = { providerConfigKey: "cal", connectionId };
    const before = (await h.client.getCredentials(ref)).credentials?.accessToken;
    const forced = await Promise.all(
      Array.from({ length: 5 }, () => h.client.getCredentials({ ...ref, forceRefresh: true })),
    );
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
    expect(forced[0]?.credentials?.accessToken).not.toBe(before as string);
  });
});

describe("refresh failures", () => {
  test("a revoked refresh token is recorded with its reasons, told to the customer once, and fails fast during the cooldown", async () => {
    const h = await harness.start({ oauth: { refreshFailureCooldownMs: 5 * 60_000 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const ref = { providerConfigKey: "cal", connectionId };
    const refreshToken = (await h.client.getCredentials(ref)).credentials?.refreshToken as string;
    h.fake.revokeRefreshToken(refreshToken);
    await h.clock.advance(HOUR);

    await expect(h.client.getCredentials(ref)).rejects.toThrow(/Token refresh failed.*invalid_grant/);
    const { connection } = await h.client.getConnection(ref);
    const [error] = connection?.errors ?? [];
    expect(error?.type).toBe("refresh_failed");
    expect(error?.upstreamError).toBe("invalid_grant");
    expect(error?.upstreamErrorDescription).toBe("Token has been expired or revoked.");
    expect(error?.message).toMatch(/revoked this app's access/);
    expect(error?.message).toMatch(/100 live refresh tokens/);
    expect(error?.message).toMatch(/Testing mode/);
    expect(error?.message).toMatch(/authorize again/);
    expect(Number(error?.retryAfterMs)).toBe(h.clock.now() + 5 * 60_000);

    const jobs = await h.waitForDeliveries(2);
    expect(bodyOf(jobs[1]!)).toMatchObject({
      type: "auth",
      operation: "refresh",
      success: false,
      connectionId,
      providerConfigKey: "cal",
      error: { type: "invalid_grant" },
    });

    // During the cooldown: a clear failure, and the upstream is left alone.
    for (let i = 0; i < 5; i++) {
      const err = await h.client.getCredentials(ref).catch((e: unknown) => e);
      expect(String(err)).toContain("Token refresh failed");
    }
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);

    // After it, one more attempt; still refused, but the customer was already told.
    await h.clock.advance(5 * 60_000);
    await expect(h.client.getCredentials(ref)).rejects.toThrow(/invalid_grant/);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(2);
    await h.clock.advance(1);
    expect(h.deliveries).toHaveLength(2);

    // A re-authorization clears the error and says so.
    const again = await h.connect({ reconnect: connectionId });
    expect(again.outcome).toBe(AuthorizationOutcome.CONNECTED);
    expect((await h.client.getConnection(ref)).connection?.errors).toEqual([]);
    const all = await h.waitForDeliveries(3);
    expect(bodyOf(all[2]!)).toMatchObject({ operation: "override", success: true, connectionId });
    expect((await h.client.getCredentials(ref)).credentials?.accessToken).toMatch(/./);
    // Secrets never reach the logs.
    expect(h.logLines.join("\n")).not.toContain(refreshToken);
    expect(h.logLines.join("\n")).not.toContain(CLIENT.clientSecret);
  });

  test("a transient failure serves a token that still works, records it without a webhook, and retries soon", async () => {
    const h = await harness.start({ oauth: { refreshTransientCooldownMs: 30_000 } });
    await h.integration();
    const { connectionId } = await h.connect();
    const ref = { providerConfigKey: "cal", connectionId };
    const old = (await h.client.getCredentials(ref)).credentials?.accessToken;
    await h.clock.advance(3599_000 - 60_000);
    h.fake.setTokenEndpointBehavior("html", { times: 1 });
    expect((await h.client.getCredentials(ref)).credentials?.accessToken).toBe(old as string);
    const { connection } = await h.client.getConnection(ref);
    expect(connection?.errors[0]?.type).toBe("refresh_unavailable");
    expect(connection?.errors[0]?.message).toMatch(/usually temporary/);
    await h.clock.advance(30_000);
    const fresh = await h.client.getCredentials(ref);
    expect(fresh.credentials?.accessToken).not.toBe(old as string);
    expect((await h.client.getConnection(ref)).connection?.errors).toEqual([]);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(2);
    expect(h.deliveries).toHaveLength(1);
  });
});
