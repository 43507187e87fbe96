import { h, replace } from "../../dashboard/client/dom.ts";
import type { Integration } from "./api.ts";
import { type App, avatar, render, say } from "./app.ts";

/** Shown from this many integrations on: fewer fit on one screen without searching. */
const SEARCH_FROM = 4;

/** Step 1: the integrations the session allows, with a search; `pick` opens one. */
export function showList(app: App, pick: (i: Integration) => void): void {
  const { words, integrations } = app;
  const title = app.session.isReconnecting ? words.reconnectTitle : words.listTitle;
  if (integrations.length === 0) {
    render({
      words,
      content: [
        h("h1", { id: "title", tabindex: "-1" }, title),
        h("p", { class: "muted", id: "empty" }, words.noIntegrations),
      ],
    });
    return;
  }
  const list = h("ul", { class: "list", id: "integrations" });
  const empty = h("p", { class: "muted", id: "no-match", hidden: true });
  const fill = (query: string) => {
    const q = query.trim().toLowerCase();
    const shown = integrations.filter((i) =>
      [i.display_name, i.provider, i.unique_key].some((t) => t.toLowerCase().includes(q)),
    );
    replace(list, ...shown.map((i) => item(i, pick)));
    empty.hidden = shown.length > 0;
    empty.textContent = say(words, "noMatch", { query: query.trim() });
  };
  const search =
    integrations.length >= SEARCH_FROM
      ? h(
          "div",
          { class: "search" },
          h("label", { for: "search", class: "visually-hidden" }, words.search),
          h("input", {
            id: "search",
            type: "search",
            placeholder: words.searchPlaceholder,
            autocomplete: "off",
            spellcheck: "false",
            oninput: (e: Event) => fill((e.target as HTMLInputElement).value),
          }),
        )
      : null;
  fill("");
  render({
    words,
    step: 0,
    content: [
      h("h1", { id: "title", tabindex: "-1" }, title),
      h("p", { class: "muted" }, words.listIntro),
      search,
      list,
      empty,
    ],
  });
}

function item(i: Integration, pick: (i: Integration) => void): HTMLElement {
  return h(
    "li",
    null,
    h(
      "button",
      { type: "button", class: "item", "data-key": i.unique_key, onclick: () => pick(i) },
      avatar(i.display_name, i.provider),
      h("span", { class: "name" }, i.display_name),
      h("span", { class: "chevron", "aria-hidden": "true" }, "›"),
    ),
  );
}
