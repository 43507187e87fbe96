import { googleCalendar } from "./google-calendar.ts";
import { googleMail } from "./google-mail.ts";
import type { ProviderTemplate } from "./provider-template.ts";

/** The provider templates integrations can be created from, by name. */
export class ProviderCatalog {
  private readonly byName: Map<string, ProviderTemplate>;

  constructor(templates: ProviderTemplate[] = [googleCalendar, googleMail]) {
    this.byName = new Map(templates.map((t) => [t.name, t]));
  }

  get(name: string): ProviderTemplate | undefined {
    return this.byName.get(name);
  }

  list(): ProviderTemplate[] {
    return [...this.byName.values()];
  }
}
