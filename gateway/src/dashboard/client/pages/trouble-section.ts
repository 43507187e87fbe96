import { connectionLink, h, hashLink } from "../dom.ts";
import type { Overview, TroubleCounts } from "./overview-types.ts";

const TROUBLE_COLUMNS: [keyof TroubleCounts, string][] = [
  ["refresh_failures", "Refresh failures"],
  ["failing_deliveries", "Failing deliveries"],
  ["failed_runs", "Failed runs"],
  ["failing_channels", "Expired channels"],
];

type Trouble = Overview["trouble"];

const integrationLink = (key: string) => h("a", { href: hashLink(`/integrations/${encodeURIComponent(key)}`) }, key);
const countCell = (n: number) => h("td", { class: n > 0 ? "num bad-text" : "num muted" }, String(n));

/** The overview's "In trouble" tables: the integrations and connections with failures, worst first. */
export function troubleSection(o: Overview): HTMLElement {
  const { unavailable } = o.trouble;
  return h(
    "section",
    { id: "trouble" },
    h("h2", null, "In trouble"),
    unavailable.length > 0
      ? h(
          "p",
          { class: "hint", id: "trouble-unavailable" },
          `Not answering, so missing here: ${unavailable.join(", ")}.`,
        )
      : null,
    h("h3", null, "Integrations"),
    integrationsInTrouble(o.trouble.integrations),
    h("h3", null, "Connections"),
    connectionsInTrouble(o.trouble.connections),
  );
}

function integrationsInTrouble(integrations: Trouble["integrations"]): HTMLElement {
  if (integrations.length === 0) {
    return h("p", { class: "muted", id: "trouble-integrations-none" }, "No integration in trouble.");
  }
  const rows = integrations.map((i) =>
    h(
      "tr",
      { "data-integration": i.provider_config_key },
      h("td", null, integrationLink(i.provider_config_key)),
      h("td", { class: "num" }, String(i.connections)),
      TROUBLE_COLUMNS.map(([k]) => countCell(i[k])),
    ),
  );
  return troubleTable("trouble-integrations", ["Integration", "Connections"], [], rows);
}

function connectionsInTrouble(connections: Trouble["connections"]): HTMLElement {
  if (connections.length === 0) {
    return h("p", { class: "muted", id: "trouble-connections-none" }, "No connection in trouble.");
  }
  const rows = connections.map((c) =>
    h(
      "tr",
      { "data-connection": `${c.provider_config_key}/${c.connection_id}` },
      h("td", null, connectionLink(c.provider_config_key, c.connection_id)),
      h("td", null, integrationLink(c.provider_config_key)),
      TROUBLE_COLUMNS.map(([k]) => countCell(c[k])),
      h("td", { class: "last-error" }, c.last_error || "—"),
    ),
  );
  return troubleTable("trouble-connections", ["Connection", "Integration"], ["Last error"], rows);
}

/** A scrolling table whose head puts the trouble counts' columns between `first` and `last`. */
function troubleTable(id: string, first: string[], last: string[], rows: HTMLElement[]): HTMLElement {
  const head = h(
    "tr",
    null,
    [...first, ...TROUBLE_COLUMNS.map(([, t]) => t), ...last].map((t) => h("th", null, t)),
  );
  const table = h("table", { id }, h("thead", null, head), h("tbody", null, rows));
  return h("div", { class: "table-scroll" }, table);
}
