import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CommonConfig } from "@junction/platform";
import { openChannelStore } from "@junction/channel-service/open-store";
import { openConnectionStore } from "@junction/connection-service/open-store";
import { openScriptsStores } from "@junction/scripts-runtime/service/open-stores";
import { openWebhookStore } from "@junction/webhook-service/open-store";

/** The modules a fresh process has loaded after importing `entries` (this one's tests load more). */
function modulesLoadedBy(...entries: string[]): string[] {
  const script = `
    ${entries.map((e) => `await import(${JSON.stringify(join(import.meta.dir, e))});`).join("\n")}
    console.log(JSON.stringify(Object.keys(require.cache)));
  `;
  const run = Bun.spawnSync(["bun", "-e", script], { cwd: import.meta.dir, stderr: "pipe" });
  expect(run.stderr.toString()).toBe("");
  const loaded = JSON.parse(run.stdout.toString()) as string[];
  expect(loaded.length).toBeGreaterThan(50);
  return loaded;
}

describe("the embedded default's modules", () => {
  test("leave out what only the distributed topology or an option uses: NATS, HTTP/2 transports, the sandbox upstream, MongoDB", () => {
    const loaded = modulesLoadedBy("embedded.ts");
    for (const unused of ["/@nats-io/", "/@connectrpc/connect-node/", "/sandbox-upstream/", "/mongodb/"]) {
      expect({ unused, loaded: loaded.filter((m) => m.includes(unused)) }).toEqual({ unused, loaded: [] });
    }
  });
});

describe("the MongoDB driver", () => {
  test("is not loaded by either entry point until a store asks for it", () => {
    expect(modulesLoadedBy("embedded.ts", "distributed.ts").filter((m) => m.includes("/mongodb/"))).toEqual([]);
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
