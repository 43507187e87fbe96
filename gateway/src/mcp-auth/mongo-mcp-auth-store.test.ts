import { expect, test } from "bun:test";
import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoClient } from "mongodb";
import { mcpAuthStoreConformance } from "./mcp-auth-store.conformance.ts";
import { newSecret } from "./mcp-auth-store.ts";
import { MongoMcpAuthStore } from "./mongo-mcp-auth-store.ts";

const mongo = mongoForTests("MCP auth store");
if (mongo) {
  mcpAuthStoreConformance(
    "MongoMcpAuthStore",
    async () => {
      const name = mongo.freshDatabaseName("junction_mcp_auth_test");
      const store = await MongoMcpAuthStore.connect(mongo.url(), name);
      const twins: MongoMcpAuthStore[] = [];
      return {
        store,
        // Its own client, as another gateway process has.
        twin: async () => {
          const twin = await MongoMcpAuthStore.connect(mongo.url(), name);
          twins.push(twin);
          return twin;
        },
        cleanup: async () => {
          for (const t of twins) await t.close();
          await store.close();
          await mongo.drop(name);
        },
      };
    },
    { shared: true },
  );

  test("MongoMcpAuthStore keeps digests, never the secrets, and expires grants by a TTL index", async () => {
    const name = mongo.freshDatabaseName("junction_mcp_auth_test");
    const store = await MongoMcpAuthStore.connect(mongo.url(), name);
    const token = newSecret("jct_mcp_at_");
    const grant = { clientId: "mcpc_1", serverId: "mcpu_a", resource: "http://x/mcp/u/mcpu_a", expiresAtMs: 1000 };
    await store.putToken(token, "access", grant);
    const client = await new MongoClient(mongo.url()).connect();
    try {
      const grants = client.db(name).collection("mcp_grants");
      expect(JSON.stringify(await grants.find().toArray())).not.toContain(token);
      const ttl = (await grants.indexes()).find((i) => i.name === "mcp_grants_ttl");
      expect(ttl?.expireAfterSeconds).toBe(0);
      expect(ttl?.key).toEqual({ expiresAt: 1 });
    } finally {
      await client.close();
      await store.close();
      await mongo.drop(name);
    }
  });
}
