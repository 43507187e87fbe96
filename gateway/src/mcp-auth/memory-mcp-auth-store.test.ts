import { mcpAuthStoreConformance } from "./mcp-auth-store.conformance.ts";
import { MemoryMcpAuthStore } from "./memory-mcp-auth-store.ts";

mcpAuthStoreConformance(
  "MemoryMcpAuthStore",
  async () => ({ store: new MemoryMcpAuthStore(), cleanup: async () => {} }),
  {
    shared: false,
  },
);
