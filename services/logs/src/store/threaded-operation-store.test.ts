import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "@junction/platform";
import { operationStoreConformance } from "./operation-store.conformance.ts";
import { ThreadedOperationStore } from "./threaded-operation-store.ts";

operationStoreConformance("ThreadedOperationStore", async () => {
  const dir = mkdtempSync(join(tmpdir(), "oplog-threaded-"));
  const { store } = await ThreadedOperationStore.open({ file: join(dir, "logs.sqlite"), logger: memoryLogger() });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
