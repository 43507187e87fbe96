import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CommonConfig } from "@junction/platform";
import { openChannelStore } from "@junction/channel-service/open-store";
import { openConnectionStore } from "@junction/connection-service/open-store";
import { openScriptsStores } from "@junction/scripts-runtime/service/open-stores";
import { openWebhookStore } from "@junction/webhook-service/open-store";

describe("the MongoDB driver", () => {
  test("is not loaded by the embedded default or the distributed entry point until a store asks for it", () => {
    // A fresh process: this one's test files load the driver for the MongoDB conformance suites.
    const script = `
      await import(${JSON.stringify(join(import.meta.dir, "embedded.ts"))});
      await import(${JSON.stringify(join(import.meta.dir, "distributed.ts"))});
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify({ modules: loaded.length, mongodb: loaded.filter((k) => k.includes("/mongodb/")) }));
    `;
    const run = Bun.spawnSync(["bun", "-e", script], { cwd: import.meta.dir, stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const { modules, mongodb } = JSON.parse(run.stdout.toString()) as { modules: number; mongodb: string[] };
    expect(modules).toBeGreaterThan(50);
    expect(mongodb).toEqual([]);
  });

  test("is loaded by each store's open function when the config asks for MongoDB", async () => {
    // A malformed URL fails in the driver's parser at once: the driver was loaded and asked.
    const cfg = { store: "mongodb", mongodbUrl: "notmongodb://x", mongodbDatabase: "junction" } as CommonConfig;
    for (const open of [openConnectionStore, openChannelStore, openWebhookStore, openScriptsStores]) {
      const err = await Promise.resolve(open(cfg)).then(
        () => null,
        (e: unknown) => e,
      );
      expect({ open: open.name, error: (err as Error | null)?.name }).toEqual({
        open: open.name,
        error: "MongoParseError",
      });
    }
  });
});
