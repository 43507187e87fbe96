import { join } from "node:path";
import type { Logger } from "@junction/platform";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { adapterFromDefinition, type ProviderAdapter, providerAdapter, providerAdapters } from "@junction/providers";
import type { ProviderDefinitionStore } from "../store/provider-definitions.ts";
import { loadDefinitionFiles } from "./definition-files.ts";

/**
 * The provider adapters integrations can be created from, by name: the built-in catalogue (unless a test
 * passes its own), the definition files over it, and the providers defined over the API (POST /providers,
 * stored with the integrations) over both. An override of a built-in replaces its data and keeps its code.
 */
export class ProviderCatalog {
  private readonly base: Map<string, ProviderAdapter>;
  private defined = new Map<string, ProviderAdapter>();
  /** Defined while a reload reads the store: kept over what it read (the read may predate them). */
  private definedDuringReload: Map<string, ProviderAdapter> | null = null;

  /** `defined`: providers given as data, added to the templates or replacing one of the same name. */
  constructor(templates: readonly ProviderAdapter[] = providerAdapters(), defined: readonly ProviderAdapter[] = []) {
    this.base = new Map([...templates, ...defined].map((t) => [t.name, t]));
  }

  /**
   * The built-in adapters with the definitions in `{dataDir}/providers/*.json` over them, their URLs
   * checked by the address policy with the operator's allowed hosts.
   */
  static fromDataDir(dataDir: string, allowedPrivateHosts: readonly string[] = []): ProviderCatalog {
    const builtins = providerAdapters();
    const policy = new OutboundAddressPolicy({ allowedHosts: allowedPrivateHosts });
    return new ProviderCatalog(builtins, loadDefinitionFiles(join(dataDir, "providers"), builtins, policy));
  }

  get(name: string): ProviderAdapter | undefined {
    return this.defined.get(name) ?? this.base.get(name);
  }

  list(): ProviderAdapter[] {
    const merged = new Map(this.base);
    for (const [name, adapter] of this.defined) merged.set(name, adapter);
    return [...merged.values()];
  }

  /** A definition sent over the API as an adapter (over the built-in of its name); throws ProviderDefinitionError. */
  adapterOf(input: unknown): ProviderAdapter {
    const name = (input as { name?: unknown } | null)?.name;
    return adapterFromDefinition(input, typeof name === "string" ? this.base.get(name) : undefined);
  }

  /** Takes a provider defined over the API, already stored. */
  define(adapter: ProviderAdapter): void {
    this.defined.set(adapter.name, adapter);
    this.definedDuringReload?.set(adapter.name, adapter);
  }

  /**
   * Reads the providers defined over the API from the store (at start, and now and then so that every
   * process of the service sees another's). One that no longer validates (a schema change) is logged and
   * left out; the others still load.
   */
  async reload(store: ProviderDefinitionStore, logger?: Logger): Promise<void> {
    const next = new Map<string, ProviderAdapter>();
    const during = new Map<string, ProviderAdapter>();
    this.definedDuringReload = during;
    let records: Awaited<ReturnType<ProviderDefinitionStore["listProviderDefinitions"]>>;
    try {
      records = await store.listProviderDefinitions();
    } finally {
      if (this.definedDuringReload === during) this.definedDuringReload = null;
    }
    // What follows is synchronous: nothing is defined between here and the swap.
    for (const record of records) {
      // Stored before built-in names were refused: the built-in serves again (its connections' tokens stay with it).
      if (providerAdapter(record.name) !== undefined) {
        logger?.error("stored provider definition skipped: it redefines a built-in", { provider: record.name });
        continue;
      }
      try {
        next.set(record.name, this.adapterOf(JSON.parse(record.definition)));
      } catch (err) {
        logger?.error("stored provider definition skipped", { provider: record.name, error: (err as Error).message });
      }
    }
    for (const [name, adapter] of during) next.set(name, adapter);
    this.defined = next;
  }
}
