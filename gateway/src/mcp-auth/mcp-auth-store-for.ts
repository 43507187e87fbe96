import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase, type ReadinessCheck, sqliteCheck } from "@junction/platform";
import type { McpAuthStore } from "./mcp-auth-store.ts";
import { SqliteMcpAuthStore } from "./sqlite-mcp-auth-store.ts";

/** The file a distributed gateway keeps the MCP front door's grants in, under the data dir. */
export const GATEWAY_SQLITE_FILE = "gateway.sqlite";

/** A durable MCP auth store, the readiness check of what holds it, and how to let it go. */
export interface OpenedMcpAuthStore {
  store: McpAuthStore;
  readiness: ReadinessCheck;
  close(): Promise<void>;
}

/**
 * The store a distributed gateway keeps MCP URLs, clients, codes and tokens in, chosen as the services
 * choose theirs (JUNCTION_STORE): `gateway.sqlite` in the data dir (WAL: gateway processes on one host
 * share it), or MongoDB (every gateway process, on any host). Either outlives a restart. `db` is the
 * gateway's file when its process has it open already (the overview keeps its buckets there too): the
 * store then uses that handle and leaves closing it to its owner.
 */
export async function mcpAuthStoreFor(common: CommonConfig, db?: () => Database): Promise<OpenedMcpAuthStore> {
  if (common.store === "mongodb") {
    // Loaded only when asked for, as the services' MongoDB stores are: the driver is large.
    const { MongoMcpAuthStore } = await import("./mongo-mcp-auth-store.ts");
    const { mongoCheck } = await import("@junction/platform/mongo-check");
    const url = common.mongodbUrl as string;
    const store = await MongoMcpAuthStore.connect(url, common.mongodbDatabase);
    const check = mongoCheck("mcp_auth_store", url, common.mongodbDatabase);
    return {
      store,
      readiness: check,
      close: async () => {
        await check.close();
        await store.close();
      },
    };
  }
  const shared = db?.();
  const file = shared ?? openDatabase(join(common.dataDir, GATEWAY_SQLITE_FILE), { cacheMb: common.sqliteCacheMb });
  return {
    store: new SqliteMcpAuthStore(file),
    readiness: sqliteCheck("mcp_auth_store", file),
    close: async () => {
      if (!shared) file.close();
    },
  };
}
