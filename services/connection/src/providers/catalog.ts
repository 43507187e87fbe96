import { type ProviderAdapter, providerAdapters } from "@junction/providers";

/** The provider adapters integrations can be created from, by name (the registry's, unless a test passes its own). */
export class ProviderCatalog {
  private readonly byName: Map<string, ProviderAdapter>;

  constructor(templates: readonly ProviderAdapter[] = providerAdapters()) {
    this.byName = new Map(templates.map((t) => [t.name, t]));
  }

  get(name: string): ProviderAdapter | undefined {
    return this.byName.get(name);
  }

  list(): ProviderAdapter[] {
    return [...this.byName.values()];
  }
}
