import { badge, h, replace } from "../dom.ts";
import type { Provider } from "../types.ts";

/** Whether a provider matches a search: every word in its name, display name or auth mode. */
function matches(p: Provider, search: string): boolean {
  const text = `${p.name} ${p.display_name} ${p.auth_mode}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "")
    .every((w) => text.includes(w));
}

/** What the connect page asks for a provider, in words. */
function asks(p: Provider): string {
  const labels = p.connect_fields.map((f) => f.label);
  if (p.auth_mode === "OAUTH2") labels.push("consent at the provider");
  return labels.length > 0 ? labels.join("; ") : "nothing";
}

/**
 * The provider picker of the new-integration form: a search over the catalogue (words of the name,
 * display name or auth mode) narrowing the list, and the chosen provider's auth mode, what its connect
 * page asks and its documentation. `onPick` runs when the choice changes.
 */
export function providerPicker(
  providers: Provider[],
  onPick: (p: Provider | undefined) => void,
): { element: HTMLElement; selected(): Provider | undefined } {
  const search = h("input", {
    type: "search",
    id: "provider-search",
    placeholder: `Search ${providers.length} providers`,
    autocomplete: "off",
  });
  const select = h("select", { id: "provider", name: "provider", size: 8 });
  const summary = h("p", { id: "provider-summary", class: "muted" });
  const selected = () => providers.find((p) => p.name === select.value);
  const describe = () => {
    const p = selected();
    replace(
      summary,
      p
        ? [
            badge(p.auth_mode, "basic"),
            ` The connect page asks: ${asks(p)}. `,
            p.docs ? h("a", { href: p.docs, target: "_blank", rel: "noopener" }, "Provider docs") : null,
          ]
        : h("span", { class: "error" }, "No provider matches the search."),
    );
  };
  const filter = () => {
    const before = select.value;
    const shown = providers.filter((p) => matches(p, search.value));
    replace(
      select,
      shown.map((p) => h("option", { value: p.name }, `${p.display_name} (${p.name}) · ${p.auth_mode}`)),
    );
    select.value = shown.some((p) => p.name === before) ? before : (shown[0]?.name ?? "");
    describe();
    if (select.value !== before) onPick(selected());
  };
  search.addEventListener("input", filter);
  select.addEventListener("change", () => {
    describe();
    onPick(selected());
  });
  filter();
  return { element: h("div", { class: "provider-picker" }, search, select, summary), selected };
}
