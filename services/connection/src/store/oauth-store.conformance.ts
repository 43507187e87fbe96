import { describe, expect, test } from "bun:test";
import type { ConnectSessionRecord, OAuthStateRecord } from "./records.ts";
import type { ConnectionServiceStore } from "./store.ts";

const ENV = "env_conformance";
const T0 = 1_767_225_600_000;

const session = (id: string, over: Partial<ConnectSessionRecord> = {}): ConnectSessionRecord => ({
  id,
  environmentId: ENV,
  tokenHash: `hash-of-${id}`,
  endUser: { id: "u1", email: "u1@example.test" },
  organization: { id: "org1" },
  allowedIntegrations: ["cal"],
  integrationsConfigDefaults: {
    cal: { userScopes: ["email"], authorizationParams: { login_hint: "u1@example.test" }, connectionConfig: { a: 1 } },
  },
  overrides: {
    cal: { docsConnect: "https://docs.example.test/cal", userScopes: ["profile"], connectionConfig: { b: 2 } },
  },
  tags: { end_user_id: "u1", "project.id": "p-1" },
  reconnect: null,
  createdAt: T0,
  expiresAt: T0 + 1_800_000,
  ...over,
});

const state = (hash: string, over: Partial<OAuthStateRecord> = {}): OAuthStateRecord => ({
  stateHash: hash,
  environmentId: ENV,
  sessionId: "sess_1",
  providerConfigKey: "cal",
  connectionId: "c1",
  codeVerifierEnc: "enc:v1:k:iv:ct",
  redirectUri: "http://127.0.0.1:3003/oauth/callback",
  scopes: ["openid", "email"],
  testCredentials: false,
  connectionConfig: { subdomain: "acme" },
  createdAt: T0,
  expiresAt: T0 + 600_000,
  consumedAt: null,
  ...over,
});

/**
 * Connect sessions, single-use states and leases: registered by connectionStoreConformance, so every
 * ConnectionServiceStore implementation runs them against a fresh store per test.
 */
export function oauthFlowStoreConformance(store: () => ConnectionServiceStore): void {
  describe("providers defined over the API", () => {
    test("are stored by name, replaced in place, and listed sorted", async () => {
      const def = (n: number) => JSON.stringify({ name: "acme", displayName: `Acme ${n}` });
      expect(await store().listProviderDefinitions()).toEqual([]);
      expect(await store().putProviderDefinition({ name: "acme", definition: def(1), updatedAt: T0 })).toBe(true);
      expect(await store().putProviderDefinition({ name: "beta", definition: "{}", updatedAt: T0 })).toBe(true);
      expect(await store().putProviderDefinition({ name: "acme", definition: def(2), updatedAt: T0 + 1 })).toBe(false);
      expect(await store().listProviderDefinitions()).toEqual([
        { name: "acme", definition: def(2), updatedAt: T0 + 1 },
        { name: "beta", definition: "{}", updatedAt: T0 },
      ]);
    });
  });

  describe("connect sessions", () => {
    test("are found by token hash and by id, with every field", async () => {
      const a = session("sess_a", { webhookUrlOverride: "https://hooks.example.test/u1" });
      const b = session("sess_b", { organization: null, reconnect: { providerConfigKey: "cal", connectionId: "c9" } });
      // Nango allows a session with tags and no end user.
      const c = session("sess_c", { endUser: null, overrides: {}, tags: { team: "core" } });
      await store().insertConnectSession(c);
      expect(await store().getConnectSession("sess_c")).toEqual(c);
      await store().insertConnectSession(a);
      await store().insertConnectSession(b);
      expect(await store().getConnectSessionByTokenHash("hash-of-sess_a")).toEqual(a);
      expect(await store().getConnectSession("sess_b")).toEqual(b);
      expect(await store().getConnectSessionByTokenHash("unknown")).toBeNull();
      expect(await store().getConnectSession("sess_unknown")).toBeNull();
    });
  });

  describe("authorization states", () => {
    test("are used once: the second use is reported as a replay", async () => {
      const s = state("h1", { testCredentials: true });
      await store().insertOAuthState(s);
      expect(await store().consumeOAuthState("h1", T0 + 5)).toEqual({
        state: { ...s, consumedAt: T0 + 5 },
        alreadyUsed: false,
      });
      expect(await store().consumeOAuthState("h1", T0 + 9)).toEqual({
        state: { ...s, consumedAt: T0 + 5 },
        alreadyUsed: true,
      });
      expect(await store().consumeOAuthState("never-issued", T0)).toBeNull();
    });

    test("keep the origin of the page that started them and the SDK's socket id, and none when none was known", async () => {
      const s = state("h2", { openerOrigin: "https://app.example.test", wsClientId: "sock-0123456789abcdef" });
      await store().insertOAuthState(s);
      await store().insertOAuthState(state("h3"));
      const kept = (await store().consumeOAuthState("h2", T0 + 1))?.state;
      expect([kept?.openerOrigin, kept?.wsClientId]).toEqual(["https://app.example.test", "sock-0123456789abcdef"]);
      const none = (await store().consumeOAuthState("h3", T0 + 1))?.state;
      expect(none).not.toHaveProperty("openerOrigin");
      expect(none).not.toHaveProperty("wsClientId");
    });

    test("used concurrently, exactly one use wins", async () => {
      await store().insertOAuthState(state("race"));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().consumeOAuthState("race", T0 + i)),
      );
      expect(results.filter((r) => r?.alreadyUsed === false)).toHaveLength(1);
      expect(results.filter((r) => r?.alreadyUsed === true)).toHaveLength(19);
    });

    test("abandoned states: the expired unused ones are claimed once, marked so; used and live ones are not", async () => {
      await store().insertOAuthState(state("gone-1", { expiresAt: T0 + 10 }));
      await store().insertOAuthState(state("gone-2", { expiresAt: T0 + 20 }));
      await store().insertOAuthState(state("gone-3", { expiresAt: T0 + 30 }));
      await store().insertOAuthState(state("used", { expiresAt: T0 + 10 }));
      await store().insertOAuthState(state("live", { expiresAt: T0 + 1000 }));
      await store().consumeOAuthState("used", T0 + 5);
      const first = await store().claimAbandonedOAuthStates(T0 + 30, 2);
      expect(first.map((s) => s.stateHash)).toEqual(["gone-1", "gone-2"]);
      expect(first[0]).toEqual({ ...state("gone-1", { expiresAt: T0 + 10 }), consumedAt: T0 + 30, abandoned: true });
      const rest = await store().claimAbandonedOAuthStates(T0 + 30, 100);
      expect(rest.map((s) => s.stateHash)).toEqual(["gone-3"]);
      expect(await store().claimAbandonedOAuthStates(T0 + 500, 100)).toEqual([]);
      // A callback that comes after finds it used, and why.
      const late = await store().consumeOAuthState("gone-1", T0 + 40);
      expect(late).toMatchObject({ alreadyUsed: true, state: { abandoned: true, consumedAt: T0 + 30 } });
      const used = await store().consumeOAuthState("used", T0 + 40);
      expect(used?.alreadyUsed).toBe(true);
      expect(used?.state).not.toHaveProperty("abandoned");
      expect((await store().consumeOAuthState("live", T0 + 40))?.alreadyUsed).toBe(false);
    });

    test("abandoned states: sweepers and callbacks racing over the same states, each state goes to one", async () => {
      const hashes = Array.from({ length: 12 }, (_, i) => `r${i}`);
      for (const h of hashes) await store().insertOAuthState(state(h, { expiresAt: T0 + 10 }));
      const [a, b, ...uses] = await Promise.all([
        store().claimAbandonedOAuthStates(T0 + 20, 100),
        store().claimAbandonedOAuthStates(T0 + 20, 100),
        ...hashes.filter((_, i) => i % 3 === 0).map((h) => store().consumeOAuthState(h, T0 + 20)),
      ]);
      const claimed = [...(a ?? []), ...(b ?? [])].map((s) => (s as OAuthStateRecord).stateHash);
      const usedByCallback = uses.filter((u) => u && "alreadyUsed" in u && !u.alreadyUsed);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.length + usedByCallback.length).toBe(hashes.length);
    });

    test("purge removes expired sessions and states, and keeps live ones", async () => {
      await store().insertConnectSession(session("sess_old", { tokenHash: "old", expiresAt: T0 + 10 }));
      await store().insertConnectSession(session("sess_new", { tokenHash: "new", expiresAt: T0 + 1000 }));
      await store().insertOAuthState(state("old", { expiresAt: T0 + 10 }));
      await store().insertOAuthState(state("new", { expiresAt: T0 + 1000 }));
      await store().purgeOAuthFlow(T0 + 11);
      expect(await store().getConnectSession("sess_old")).toBeNull();
      expect(await store().getConnectSession("sess_new")).not.toBeNull();
      expect(await store().consumeOAuthState("old", T0 + 12)).toBeNull();
      expect((await store().consumeOAuthState("new", T0 + 12))?.alreadyUsed).toBe(false);
    });
  });

  describe("leases", () => {
    test("a live lease is held by one holder; it renews, releases and expires", async () => {
      const s = store();
      expect(await s.acquireLease("refresh:c1", "a", T0, T0 + 100)).toBe(true);
      expect(await s.acquireLease("refresh:c1", "b", T0 + 50, T0 + 150)).toBe(false);
      expect(await s.acquireLease("refresh:c2", "b", T0 + 50, T0 + 150)).toBe(true);
      // The holder may extend its own lease.
      expect(await s.acquireLease("refresh:c1", "a", T0 + 60, T0 + 200)).toBe(true);
      expect(await s.acquireLease("refresh:c1", "b", T0 + 150, T0 + 300)).toBe(false);
      // Releasing someone else's lease does nothing.
      await s.releaseLease("refresh:c1", "b");
      expect(await s.acquireLease("refresh:c1", "b", T0 + 150, T0 + 300)).toBe(false);
      await s.releaseLease("refresh:c1", "a");
      expect(await s.acquireLease("refresh:c1", "b", T0 + 150, T0 + 300)).toBe(true);
      // A holder that died: its lease is taken over once expired, not before.
      expect(await s.acquireLease("refresh:c1", "c", T0 + 299, T0 + 400)).toBe(false);
      expect(await s.acquireLease("refresh:c1", "c", T0 + 300, T0 + 400)).toBe(true);
    });

    test("of many concurrent takers, exactly one gets the lease", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().acquireLease("refresh:hot", `holder-${i}`, T0, T0 + 1000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
