import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "@junction/platform";
import { operationStoreConformance, op } from "./operation-store.conformance.ts";
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

describe("ThreadedOperationStore, a batch as text", () => {
  test("keeps a batch handed over as the recorder's JSON as it keeps the same objects, ids stored twice skipped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "oplog-threaded-encoded-"));
    const { store } = await ThreadedOperationStore.open({ file: join(dir, "logs.sqlite"), logger: memoryLogger() });
    try {
      const a = op({
        tags: ["vip"],
        messages: [{ atMs: 5, level: "warn", text: "attempt 1 answered 503", fields: { s: 503 } }],
      });
      const b = op({ title: "second", totals: { count: 3, latencyMinMs: 1, latencyMaxMs: 9, latencySumMs: 12 } });
      await store.insertEncoded(JSON.stringify([a, b]));
      await store.insertEncoded(JSON.stringify([{ ...a, title: "a copy" }]));
      expect(await store.get(a.id)).toEqual(a);
      expect(await store.get(b.id)).toEqual(b);
      expect(await store.count()).toBe(2);
      expect((await store.list({ q: "503" }, 10)).map((o) => o.id)).toEqual([a.id]);
      expect((await store.list({ tag: "vip" }, 10)).map((o) => o.id)).toEqual([a.id]);
      const refused = await store.insertEncoded("[{not json").then(
        () => "kept",
        (err: Error) => err.message,
      );
      expect(refused).toContain("JSON");
      expect(await store.count()).toBe(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
