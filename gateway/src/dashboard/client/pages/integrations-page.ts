import { api } from "../api.ts";
import { h, hashLink, when } from "../dom.ts";
import type { Integration } from "../types.ts";

/** #/integrations: every integration, and the way to create one. */
export async function integrationsPage(): Promise<Node> {
  const { data } = await api<{ data: Integration[] }>("GET", "/integrations");
  return h(
    "section",
    null,
    h(
      "div",
      { class: "spread" },
      h("h1", null, "Integrations"),
      h("a", { href: "#/integrations/new", id: "new-integration" }, h("button", { type: "button" }, "New integration")),
    ),
    data.length === 0
      ? h(
          "p",
          { class: "card muted", id: "no-integrations" },
          "No integration yet. Create one from a provider template to connect users.",
        )
      : h(
          "table",
          { id: "integrations" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              h("th", null, "Integration id"),
              h("th", null, "Name"),
              h("th", null, "Provider"),
              h("th", null, "Forwards webhooks"),
              h("th", null, "Created"),
            ),
          ),
          h(
            "tbody",
            null,
            data.map((i) =>
              h(
                "tr",
                { "data-key": i.unique_key },
                h(
                  "td",
                  null,
                  h("a", { href: hashLink(`/integrations/${encodeURIComponent(i.unique_key)}`) }, i.unique_key),
                ),
                h("td", null, i.display_name),
                h("td", null, i.provider),
                h("td", null, i.forward_webhooks ? "yes" : "no"),
                h("td", null, when(i.created_at)),
              ),
            ),
          ),
        ),
  );
}
