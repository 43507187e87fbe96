import { describe, expect, test } from "bun:test";
import { openDatabase } from "@junction/platform";
import { type McpAuthStore, MemoryMcpAuthStore, newSecret } from "./mcp-auth-store.ts";
import { SqliteMcpAuthStore } from "./sqlite-mcp-auth-store.ts";

// Both stores keep the same promises: single-use codes and refresh tokens, secrets kept by digest,
// revocation of an MCP URL's tokens, expiry sweeps.

const stores: [string, () => McpAuthStore][] = [
  ["memory", () => new MemoryMcpAuthStore()],
  ["sqlite", () => new SqliteMcpAuthStore(openDatabase(":memory:"))],
];

const server = { id: "mcpu_a", environmentId: "env", endUser: { id: "u" }, integrations: [], createdAtMs: 1 };
const grant = { clientId: "mcpc_1", serverId: "mcpu_a", resource: "http://x/mcp/u/mcpu_a", expiresAtMs: 1000 };

for (const [name, make] of stores) {
  describe(`${name} MCP auth store`, () => {
    test("a code and a refresh token are taken once; an access token is read, never taken", () => {
      const store = make();
      const code = newSecret("mcpcode_");
      store.putCode(code, { ...grant, redirectUri: "http://127.0.0.1/cb", codeChallenge: "c" });
      expect(store.takeCode(code)?.codeChallenge).toBe("c");
      expect(store.takeCode(code)).toBeUndefined();
      store.putToken("rt", "refresh", grant);
      store.putToken("at", "access", grant);
      expect(store.getAccessToken("rt")).toBeUndefined();
      expect(store.takeRefreshToken("at")).toBeUndefined();
      expect(store.getAccessToken("at")?.serverId).toBe("mcpu_a");
      expect(store.getAccessToken("at")?.serverId).toBe("mcpu_a");
      expect(store.takeRefreshToken("rt")?.clientId).toBe("mcpc_1");
      expect(store.takeRefreshToken("rt")).toBeUndefined();
    });

    test("revoking an MCP URL drops its codes and tokens and no other URL's", () => {
      const store = make();
      store.putServer(server);
      store.putServer({ ...server, id: "mcpu_b" });
      store.putToken("at-a", "access", grant);
      store.putToken("rt-a", "refresh", grant);
      store.putToken("at-b", "access", { ...grant, serverId: "mcpu_b" });
      store.putCode("code-a", { ...grant, redirectUri: "r", codeChallenge: "c" });
      expect(store.revokeServer("mcpu_a", 50)).toBe(true);
      expect(store.getServer("mcpu_a")?.revokedAtMs).toBe(50);
      expect(store.getAccessToken("at-a")).toBeUndefined();
      expect(store.takeRefreshToken("rt-a")).toBeUndefined();
      expect(store.takeCode("code-a")).toBeUndefined();
      expect(store.getAccessToken("at-b")?.serverId).toBe("mcpu_b");
      expect(store.revokeTokens("mcpu_b")).toBe(1);
      expect(store.revokeServer("mcpu_none", 50)).toBe(false);
    });

    test("consent requests are taken once; sweeps forget what expired", () => {
      const store = make();
      const consent = {
        id: "mcpr_1",
        clientId: "mcpc_1",
        serverId: "mcpu_a",
        redirectUri: "r",
        codeChallenge: "c",
        state: undefined,
        resource: "x",
        expiresAtMs: 100,
      };
      store.putConsent(consent);
      expect(store.getConsent("mcpr_1")?.clientId).toBe("mcpc_1");
      expect(store.takeConsent("mcpr_1")?.clientId).toBe("mcpc_1");
      expect(store.takeConsent("mcpr_1")).toBeUndefined();
      store.putToken("old", "access", { ...grant, expiresAtMs: 100 });
      store.putToken("new", "access", { ...grant, expiresAtMs: 200 });
      store.sweep(150);
      expect(store.getAccessToken("old")).toBeUndefined();
      expect(store.getAccessToken("new")).toBeDefined();
    });

    test("clients: registered ones are counted, metadata documents are not", () => {
      const store = make();
      store.putClient({ clientId: "mcpc_1", clientName: "a", redirectUris: ["r"], savedAtMs: 1, kind: "dynamic" });
      store.putClient({
        clientId: "https://c.example/m.json",
        clientName: "b",
        redirectUris: ["r"],
        savedAtMs: 1,
        kind: "metadata_document",
      });
      expect(store.dynamicClientCount()).toBe(1);
      expect(store.getClient("https://c.example/m.json")?.clientName).toBe("b");
    });
  });
}

test("the SQLite store keeps digests, never the secrets", () => {
  const db = openDatabase(":memory:");
  const store = new SqliteMcpAuthStore(db);
  const token = newSecret("jct_mcp_at_");
  store.putToken(token, "access", grant);
  const dump = JSON.stringify(db.query("SELECT * FROM mcp_grants").all());
  expect(dump).not.toContain(token);
  expect(store.getAccessToken(token)).toBeDefined();
});

for (const [name, make] of stores) {
  test(`${name}: registered clients never used are forgotten past their age; used ones stay`, () => {
    const store = make();
    const client = (clientId: string, savedAtMs: number) => ({
      clientId,
      clientName: clientId,
      redirectUris: ["r"],
      savedAtMs,
      kind: "dynamic" as const,
    });
    store.putClient(client("old-unused", 1));
    store.putClient(client("old-used", 1));
    store.putClient(client("new-unused", 500));
    store.putToken("rt", "refresh", { ...grant, clientId: "old-used" });
    expect(store.forgetUnusedClients(100)).toBe(1);
    expect(store.getClient("old-unused")).toBeUndefined();
    expect(store.getClient("old-used")).toBeDefined();
    expect(store.getClient("new-unused")).toBeDefined();
  });
}
