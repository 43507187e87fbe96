import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCommonConfig } from "@junction/platform";
import { GATEWAY_SQLITE_FILE, mcpAuthStoreFor } from "./mcp-auth-store-for.ts";

const dataDir = mkdtempSync(join(tmpdir(), "junction-mcp-store-for-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const server = { id: "mcpu_a", environmentId: "env", endUser: { id: "u" }, integrations: [], createdAtMs: 1 };

test("the default store is gateway.sqlite in the data dir: a reopened store (a restarted gateway) and a second one (another gateway process) see the grants", async () => {
  const common = loadCommonConfig({ JUNCTION_DATA_DIR: dataDir });
  const first = await mcpAuthStoreFor(common);
  const second = await mcpAuthStoreFor(common);
  expect(existsSync(join(dataDir, GATEWAY_SQLITE_FILE))).toBe(true);
  await first.store.putServer(server);
  await first.store.putToken("at", "access", { clientId: "c", serverId: "mcpu_a", resource: "r", expiresAtMs: 9 });
  expect((await second.store.getAccessToken("at"))?.serverId).toBe("mcpu_a");
  await first.readiness.check();
  await first.close();
  await second.close();
  const reopened = await mcpAuthStoreFor(common);
  expect((await reopened.store.getServer("mcpu_a"))?.endUser.id).toBe("u");
  expect((await reopened.store.getAccessToken("at"))?.clientId).toBe("c");
  await reopened.close();
});
