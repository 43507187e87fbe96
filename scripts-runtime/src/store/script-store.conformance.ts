import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { newId } from "@junction/platform";
import type { NewScriptVersion } from "./records.ts";
import type { ScriptStore } from "./stores.ts";

/** A fresh, empty store and how to dispose of it. */
export type ScriptStoreFactory = () => Promise<{ store: ScriptStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";

/** The behaviour every ScriptStore must have; run by each implementation's test file. */
export function scriptStoreConformance(name: string, factory: ScriptStoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: ScriptStore;
    let cleanup: () => Promise<void>;
    let now = 1_767_225_600_000;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(() => cleanup());

    const upload = (scriptName: string, over: Partial<NewScriptVersion> = {}): NewScriptVersion => {
      now += 1000;
      const source = `export default createSync({ frequency: "1d", exec: async () => ${now} });`;
      return {
        id: newId("scr", now),
        environmentId: ENV,
        providerConfigKey: "google-calendar",
        name: scriptName,
        source,
        compiled: { filename: `${scriptName}.ts`, code: source, sourceMap: '{"version":3}', sourceHash: `hash-${now}` },
        declaration: {
          kind: "sync",
          frequency: "1d",
          frequencyMs: 86_400_000,
          autoStart: true,
          webhookSubscriptions: ["*"],
          hasOnWebhook: true,
          endpoints: [{ method: "GET", path: "/renewal" }],
          description: null,
          version: null,
        },
        createdAt: now,
        ...over,
      };
    };

    test("versions count up per script and read back as written", async () => {
      const first = await store.addVersion(upload("renewal"));
      const second = await store.addVersion(upload("renewal"));
      const other = await store.addVersion(upload("created", { providerConfigKey: "gmail" }));
      expect([first.version, second.version, other.version]).toEqual([1, 2, 1]);
      expect(await store.getLatest(ENV, "google-calendar", "renewal")).toEqual(second);
      expect(await store.getVersion(ENV, "google-calendar", "renewal", 1)).toEqual(first);
      expect(await store.getVersion(ENV, "google-calendar", "renewal", 3)).toBeNull();
      expect(await store.getLatest(ENV, "gmail", "renewal")).toBeNull();
      expect(await store.getLatest("env_other", "google-calendar", "renewal")).toBeNull();
    });

    test("concurrent uploads of one script get distinct version numbers", async () => {
      const versions = await Promise.all(Array.from({ length: 8 }, () => store.addVersion(upload("busy"))));
      expect(versions.map((v) => v.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect((await store.getLatest(ENV, "google-calendar", "busy"))?.version).toBe(8);
    });

    test("listLatest gives the latest version of each script, by integration then name", async () => {
      await store.addVersion(upload("b"));
      const b2 = await store.addVersion(upload("b"));
      const a1 = await store.addVersion(upload("a"));
      const g1 = await store.addVersion(upload("a", { providerConfigKey: "gmail" }));
      await store.addVersion(upload("a", { environmentId: "env_other" }));
      expect(await store.listLatest(ENV)).toEqual([g1, a1, b2]);
      expect(await store.listLatest(ENV, "google-calendar")).toEqual([a1, b2]);
      expect(await store.listLatest(ENV, "none")).toEqual([]);
    });

    test("listVersions is newest first, keeps the file name, and leaves source and code out", async () => {
      const v1 = await store.addVersion(upload("renewal"));
      const v2 = await store.addVersion(upload("renewal"));
      const versions = await store.listVersions(ENV, "google-calendar", "renewal");
      expect(versions.map((v) => v.version)).toEqual([2, 1]);
      expect(versions[0]).toEqual({
        id: v2.id,
        environmentId: ENV,
        providerConfigKey: "google-calendar",
        name: "renewal",
        version: 2,
        declaration: v2.declaration,
        createdAt: v2.createdAt,
        sourceHash: v2.compiled.sourceHash,
        filename: "renewal.ts",
      });
      expect(versions[1]?.id).toBe(v1.id);
      expect(Object.keys(versions[0] as object)).not.toContain("source");
    });

    test("remove deletes every version; a new upload continues the numbering", async () => {
      await store.addVersion(upload("renewal"));
      await store.addVersion(upload("renewal"));
      await store.addVersion(upload("keep"));
      expect(await store.remove(ENV, "google-calendar", "renewal")).toBe(2);
      expect(await store.remove(ENV, "google-calendar", "renewal")).toBe(0);
      expect(await store.getLatest(ENV, "google-calendar", "renewal")).toBeNull();
      expect(await store.listVersions(ENV, "google-calendar", "renewal")).toEqual([]);
      expect((await store.listLatest(ENV)).map((s) => s.name)).toEqual(["keep"]);
      const again = await store.addVersion(upload("renewal"));
      expect(again.version).toBe(3);
      expect(await store.getLatest(ENV, "google-calendar", "renewal")).toEqual(again);
    });

    test("removeIntegration deletes the scripts of one integration only", async () => {
      await store.addVersion(upload("a"));
      await store.addVersion(upload("b"));
      await store.addVersion(upload("a", { providerConfigKey: "gmail" }));
      expect(await store.removeIntegration(ENV, "google-calendar")).toBe(2);
      expect((await store.listLatest(ENV)).map((s) => s.providerConfigKey)).toEqual(["gmail"]);
    });
  });
}
