import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type McpAuthStore, newSecret } from "./mcp-auth-store.ts";

/**
 * A fresh, empty store and how to dispose of it. `twin` opens a second handle on the same store (as a
 * second gateway process would: another SQLite connection to the file, another MongoDB client); a
 * store living in one process's memory has none.
 */
export type McpAuthStoreFactory = () => Promise<{
  store: McpAuthStore;
  twin?: () => Promise<McpAuthStore>;
  cleanup: () => Promise<void>;
}>;

const server = { id: "mcpu_a", environmentId: "env", endUser: { id: "u" }, integrations: [], createdAtMs: 1 };
const grant = { clientId: "mcpc_1", serverId: "mcpu_a", resource: "http://x/mcp/u/mcpu_a", expiresAtMs: 1000 };
const code = { ...grant, redirectUri: "http://127.0.0.1/cb", codeChallenge: "c" };
const dynamicClient = (clientId: string, savedAtMs: number) => ({
  clientId,
  clientName: clientId,
  redirectUris: ["r"],
  savedAtMs,
  kind: "dynamic" as const,
});

/**
 * What every McpAuthStore promises: single-use codes, consent requests and refresh tokens (atomic,
 * one winner of concurrent takes), secrets kept by digest, revocation of an MCP URL's grants, expiry
 * sweeps, cleanup of unused registrations. Run by each implementation's test file; `shared`: the
 * store is shared between processes (its factory gives a `twin`), and the takes race across handles.
 */
export function mcpAuthStoreConformance(
  name: string,
  factory: McpAuthStoreFactory,
  options: { shared: boolean },
): void {
  describe(`${name} conformance`, () => {
    let made: Awaited<ReturnType<McpAuthStoreFactory>>;
    let store: McpAuthStore;
    beforeEach(async () => {
      made = await factory();
      store = made.store;
    });
    afterEach(async () => {
      await made.cleanup();
    });
    const twinOf = async () => {
      if (!made.twin) throw new Error(`${name}'s factory gives no second handle`);
      return made.twin();
    };

    test("a code and a refresh token are taken once; an access token is read, never taken", async () => {
      const value = newSecret("mcpcode_");
      await store.putCode(value, code);
      expect((await store.takeCode(value))?.codeChallenge).toBe("c");
      expect(await store.takeCode(value)).toBeUndefined();
      await store.putToken("rt", "refresh", grant);
      await store.putToken("at", "access", grant);
      expect(await store.getAccessToken("rt")).toBeUndefined();
      expect(await store.takeRefreshToken("at")).toBeUndefined();
      expect((await store.getAccessToken("at"))?.serverId).toBe("mcpu_a");
      expect((await store.getAccessToken("at"))?.serverId).toBe("mcpu_a");
      expect((await store.takeRefreshToken("rt"))?.clientId).toBe("mcpc_1");
      expect(await store.takeRefreshToken("rt")).toBeUndefined();
    });

    test("a code, a refresh token and a consent request taken concurrently go to exactly one taker", async () => {
      const other = options.shared ? await twinOf() : store;
      for (let round = 0; round < 5; round++) {
        const value = newSecret("mcpcode_");
        await store.putCode(value, code);
        await store.putToken(`rt-${round}`, "refresh", grant);
        await store.putConsent({ ...code, id: `mcpr_${round}`, state: undefined, resource: "x" });
        const taken = await Promise.all([
          store.takeCode(value),
          other.takeCode(value),
          other.takeRefreshToken(`rt-${round}`),
          store.takeRefreshToken(`rt-${round}`),
          store.takeConsent(`mcpr_${round}`),
          other.takeConsent(`mcpr_${round}`),
        ]);
        for (const pair of [taken.slice(0, 2), taken.slice(2, 4), taken.slice(4, 6)]) {
          expect(pair.filter((t) => t !== undefined)).toHaveLength(1);
        }
      }
    });

    if (options.shared) {
      test("a second handle on the store (another gateway process) sees what the first wrote", async () => {
        const other = await twinOf();
        await store.putServer(server);
        await store.putToken("at", "access", grant);
        expect((await other.getServer("mcpu_a"))?.endUser.id).toBe("u");
        expect((await other.getAccessToken("at"))?.clientId).toBe("mcpc_1");
        await other.revokeServer("mcpu_a", 7);
        expect((await store.getServer("mcpu_a"))?.revokedAtMs).toBe(7);
        expect(await store.getAccessToken("at")).toBeUndefined();
      });
    }

    test("revoking an MCP URL drops its codes and tokens and no other URL's", async () => {
      await store.putServer(server);
      await store.putServer({ ...server, id: "mcpu_b" });
      await store.putToken("at-a", "access", grant);
      await store.putToken("rt-a", "refresh", grant);
      await store.putToken("at-b", "access", { ...grant, serverId: "mcpu_b" });
      await store.putCode("code-a", code);
      expect(await store.revokeServer("mcpu_a", 50)).toBe(true);
      expect((await store.getServer("mcpu_a"))?.revokedAtMs).toBe(50);
      // Revoked once: a second revocation keeps the first instant.
      expect(await store.revokeServer("mcpu_a", 60)).toBe(true);
      expect((await store.getServer("mcpu_a"))?.revokedAtMs).toBe(50);
      expect(await store.getAccessToken("at-a")).toBeUndefined();
      expect(await store.takeRefreshToken("rt-a")).toBeUndefined();
      expect(await store.takeCode("code-a")).toBeUndefined();
      expect((await store.getAccessToken("at-b"))?.serverId).toBe("mcpu_b");
      expect(await store.revokeTokens("mcpu_b")).toBe(1);
      expect(await store.revokeServer("mcpu_none", 50)).toBe(false);
    });

    test("an MCP URL reads back whole, optional fields absent", async () => {
      const full = { ...server, endUser: { id: "u", email: "u@example.com", displayName: "U" }, integrations: ["cal"] };
      await store.putServer(full);
      expect(await store.getServer("mcpu_a")).toEqual(full);
      expect((await store.getServer("mcpu_a"))?.revokedAtMs).toBeUndefined();
      expect(await store.getServer("mcpu_none")).toBeUndefined();
    });

    test("consent requests are taken once; sweeps forget what expired", async () => {
      const consent = { ...code, id: "mcpr_1", state: undefined, resource: "x", expiresAtMs: 100 };
      await store.putConsent(consent);
      expect((await store.getConsent("mcpr_1"))?.clientId).toBe("mcpc_1");
      expect((await store.takeConsent("mcpr_1"))?.clientId).toBe("mcpc_1");
      expect(await store.takeConsent("mcpr_1")).toBeUndefined();
      await store.putToken("old", "access", { ...grant, expiresAtMs: 100 });
      await store.putToken("new", "access", { ...grant, expiresAtMs: 200 });
      await store.sweep(150);
      expect(await store.getAccessToken("old")).toBeUndefined();
      expect(await store.getAccessToken("new")).toBeDefined();
    });

    test("clients: registered ones are counted, metadata documents are not", async () => {
      await store.putClient(dynamicClient("mcpc_1", 1));
      const document = { ...dynamicClient("https://c.example/m.json", 1), kind: "metadata_document" as const };
      await store.putClient({ ...document, clientName: "b" });
      expect(await store.dynamicClientCount()).toBe(1);
      expect((await store.getClient("https://c.example/m.json"))?.clientName).toBe("b");
      expect(await store.getClient("mcpc_1")).toEqual(dynamicClient("mcpc_1", 1));
    });

    test("registered clients never used are forgotten past their age; used ones stay", async () => {
      await store.putClient(dynamicClient("old-unused", 1));
      await store.putClient(dynamicClient("old-used", 1));
      await store.putClient(dynamicClient("new-unused", 500));
      await store.putToken("rt", "refresh", { ...grant, clientId: "old-used" });
      expect(await store.forgetUnusedClients(100)).toBe(1);
      expect(await store.getClient("old-unused")).toBeUndefined();
      expect(await store.getClient("old-used")).toBeDefined();
      expect(await store.getClient("new-unused")).toBeDefined();
    });
  });
}
