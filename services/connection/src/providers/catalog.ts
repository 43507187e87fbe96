import { join } from "node:path";
import { type ProviderAdapter, providerAdapters } from "@junction/providers";
import { loadDefinitionFiles } from "./definition-files.ts";

/** The provider adapters integrations can be created from, by name (the registry's, unless a test passes its own). */
export class ProviderCatalog {
  private readonly byName: Map<string, ProviderAdapter>;

  /** `defined`: providers given as data, added to the templates or replacing one of the same name. */
  constructor(templates: readonly ProviderAdapter[] = providerAdapters(), defined: readonly ProviderAdapter[] = []) {
    this.byName = new Map([...templates, ...defined].map((t) => [t.name, t]));
  }

  /** The built-in adapters with the definitions in `{dataDir}/providers/*.json` over them. */
  static fromDataDir(dataDir: string): ProviderCatalog {
    const builtins = providerAdapters();
    return new ProviderCatalog(builtins, loadDefinitionFiles(join(dataDir, "providers"), builtins));
  }

  get(name: string): ProviderAdapter | undefined {
    return this.byName.get(name);
  }

  list(): ProviderAdapter[] {
    return [...this.byName.values()];
  }
}
