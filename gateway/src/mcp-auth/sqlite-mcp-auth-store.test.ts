import { afterAll, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import { mcpAuthStoreConformance } from "./mcp-auth-store.conformance.ts";
import { newSecret } from "./mcp-auth-store.ts";
import { SqliteMcpAuthStore } from "./sqlite-mcp-auth-store.ts";

const root = mkdtempSync(join(tmpdir(), "junction-mcp-auth-store-"));
let files = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A file, not :memory:, so that a twin is a second connection to it (as a second gateway process).
mcpAuthStoreConformance(
  "SqliteMcpAuthStore",
  async () => {
    const path = join(root, `store-${++files}`, "gateway.sqlite");
    const dbs: Database[] = [openDatabase(path)];
    return {
      store: new SqliteMcpAuthStore(dbs[0] as Database),
      twin: async () => {
        const db = openDatabase(path);
        dbs.push(db);
        return new SqliteMcpAuthStore(db);
      },
      cleanup: async () => {
        for (const db of dbs) db.close();
      },
    };
  },
  { shared: true },
);

test("the SQLite store keeps digests, never the secrets", async () => {
  const db = openDatabase(":memory:");
  const store = new SqliteMcpAuthStore(db);
  const token = newSecret("jct_mcp_at_");
  const grant = { clientId: "mcpc_1", serverId: "mcpu_a", resource: "http://x/mcp/u/mcpu_a", expiresAtMs: 1000 };
  await store.putToken(token, "access", grant);
  const dump = JSON.stringify(db.query("SELECT * FROM mcp_grants").all());
  expect(dump).not.toContain(token);
  expect(await store.getAccessToken(token)).toBeDefined();
});
