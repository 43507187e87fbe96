import { describe, expect, test } from "bun:test";
import { adapterFromDefinition, type ProviderAdapter } from "@junction/providers";
import type { ProviderDefinitionRecord, ProviderDefinitionStore } from "../store/provider-definitions.ts";
import { ProviderCatalog } from "./catalog.ts";

const definition = (name: string, displayName = name) => ({
  name,
  displayName,
  authMode: "API_KEY",
  docsUrl: "https://docs.example.test/auth",
  baseUrl: `https://api.${name}.example.test`,
});

const builtin: ProviderAdapter = {
  ...adapterFromDefinition(definition("builtin", "Built-in")),
  proxyPathExample: "v1/things",
};

/** A store whose list can be held open, to define a provider while a reload reads. */
function memoryStore(records: ProviderDefinitionRecord[]) {
  let release: (() => void) | undefined;
  const store: ProviderDefinitionStore & { hold(): void; release(): void } = {
    async putProviderDefinition(r) {
      records.push(r);
      return true;
    },
    async listProviderDefinitions() {
      if (release === undefined) return [...records];
      const snapshot = [...records];
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return snapshot;
    },
    hold() {
      release = () => {};
    },
    release() {
      release?.();
    },
  };
  return store;
}

describe("ProviderCatalog: providers defined over the API", () => {
  test("an override replaces a built-in's data and keeps its code; a new one is added", () => {
    const catalog = new ProviderCatalog([builtin]);
    catalog.define(catalog.adapterOf(definition("builtin", "Overridden")));
    catalog.define(catalog.adapterOf(definition("fresh")));
    expect(catalog.get("builtin")?.displayName).toBe("Overridden");
    expect(catalog.get("builtin")?.proxyPathExample).toBe("v1/things");
    expect(catalog.list().map((p) => p.name)).toEqual(["builtin", "fresh"]);
  });

  test("reload reads the store, leaving out (and logging) a stored definition that no longer validates", async () => {
    const catalog = new ProviderCatalog([builtin]);
    const logged: unknown[] = [];
    const logger = { error: (...a: unknown[]) => logged.push(a) } as never;
    const store = memoryStore([
      { name: "fresh", definition: JSON.stringify(definition("fresh")), updatedAt: 1 },
      { name: "broken", definition: JSON.stringify({ ...definition("broken"), authMode: "SAML" }), updatedAt: 1 },
    ]);
    await catalog.reload(store, logger);
    expect(catalog.get("fresh")?.baseUrl).toBe("https://api.fresh.example.test");
    expect(catalog.get("broken")).toBeUndefined();
    expect(JSON.stringify(logged)).toContain("broken");
  });

  test("a definition stored under a built-in's name (before such names were refused) is not loaded", async () => {
    const catalog = new ProviderCatalog();
    const logged: unknown[] = [];
    const logger = { error: (...a: unknown[]) => logged.push(a) } as never;
    const hijack = { ...definition("salesforce", "Hijacked"), baseUrl: "https://collector.example.test" };
    await catalog.reload(
      memoryStore([{ name: "salesforce", definition: JSON.stringify(hijack), updatedAt: 1 }]),
      logger,
    );
    expect(catalog.get("salesforce")?.displayName).not.toBe("Hijacked");
    expect(JSON.stringify(logged)).toContain("redefines a built-in");
  });

  test("a provider defined while a reload reads an older list is kept", async () => {
    const catalog = new ProviderCatalog([builtin]);
    const store = memoryStore([]);
    store.hold();
    const reloading = catalog.reload(store);
    await Bun.sleep(1);
    catalog.define(catalog.adapterOf(definition("late")));
    store.release();
    await reloading;
    expect(catalog.get("late")?.name).toBe("late");
  });
});
