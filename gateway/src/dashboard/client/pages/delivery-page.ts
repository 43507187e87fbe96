import { api, errorBox } from "../api.ts";
import { badge, connectionLink, duration, fields, h, hashLink, replace, when } from "../dom.ts";
import type { Message, Provider, WatchUriHint } from "../types.ts";
import { bodyOf, messageConnection, messageSummary } from "./message-summary.ts";

const REFRESH_MS = 1000;
const REFRESH_FOR_MS = 30_000;

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Why an unmatched notification matched nothing, and connections listing its URI in another encoding. */
async function hintFor(m: Message): Promise<Node> {
  const { data } = await api<{ data: WatchUriHint }>(
    "GET",
    `/webhook-messages/${encodeURIComponent(m.id)}/watch-uri-hints`,
  );
  if (!data.resource_uri) return h("p", { class: "muted" }, "The notification carried no resource URI.");
  const key = m.provider_config_key ?? "";
  return h(
    "div",
    { id: "watch-uri-hint" },
    h(
      "p",
      null,
      "No connection matched resource URI ",
      h("code", { id: "unmatched-uri" }, data.resource_uri),
      ". Matching compares the connections' watch URIs exactly (same encoding, path and query), then the calendar's email.",
    ),
    data.near_matches.length === 0
      ? h(
          "p",
          { class: "muted", id: "no-near-match" },
          `No connection lists this URI in another encoding${data.complete ? "" : ` (only the first ${data.scanned} connections were checked)`}.`,
        )
      : h(
          "div",
          { class: "hint", id: "near-matches" },
          h("strong", null, "Same URI, different encoding: "),
          "list it exactly as the notification sends it.",
          h(
            "ul",
            null,
            data.near_matches.map((n) =>
              h(
                "li",
                { "data-connection-id": n.connection_id },
                connectionLink(key, n.connection_id),
                " lists ",
                h("code", null, n.listed_uri),
              ),
            ),
          ),
        ),
  );
}

function attemptsTable(m: Message): Node {
  const attempts = m.attempts ?? [];
  if (attempts.length === 0) return h("p", { class: "muted" }, "No attempt yet.");
  return h(
    "table",
    { id: "attempts" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["#", "At", "Endpoint", "Status", "Latency", "Error / response"].map((t) => h("th", null, t)),
      ),
    ),
    h(
      "tbody",
      null,
      attempts.map((a) =>
        h(
          "tr",
          { "data-attempt": String(a.number) },
          h("td", null, String(a.number)),
          h("td", null, when(a.at)),
          h("td", { class: "mono" }, a.url),
          h("td", null, a.status_code === null ? "—" : String(a.status_code)),
          h("td", null, duration(a.latency_ms)),
          h("td", { class: "muted" }, a.error ?? a.response_snippet),
        ),
      ),
    ),
  );
}

/**
 * Where a forwarded notification's payload is in the body: said once, in words, rather than shown a
 * second time (the body above already holds it, exactly as sent).
 */
function payloadNote(m: Message, provider: Provider | undefined): Node | null {
  const body = bodyOf(m);
  if (m.type !== "forward" || !body || body.payload === undefined) return null;
  return h(
    "p",
    { class: "muted", id: "payload-note" },
    `Its "payload" is what ${provider?.display_name ?? String(body.from ?? "the provider")}'s notification said, as Junction read it (its headers, or the fields its reader decoded).`,
  );
}

function render(m: Message, providers: Provider[]): Node {
  const provider = providers.find((p) => p.name === bodyOf(m)?.from);
  const kinds = new Map([[m.provider_config_key ?? "", provider?.channels?.kind ?? ""]]);
  return h(
    "div",
    { id: "message", "data-status": m.status, "data-attempts": String(m.attempt_count) },
    h(
      "div",
      { class: "card" },
      fields([
        ["Status", badge(m.status)],
        ["Type", m.type],
        ["What", h("span", { id: "message-summary" }, messageSummary(m, kinds))],
        ["Integration", m.provider_config_key ?? "—"],
        ["Connection", messageConnection(m)],
        ["Created", when(m.created_at)],
        ["Attempts", String(m.attempt_count)],
        ["Next attempt", when(m.next_attempt_at)],
        ["Last error", m.last_error ?? "—"],
      ]),
      h("h2", null, "Body (exactly as signed and sent)"),
      h("pre", { id: "message-body" }, pretty(m.body)),
      payloadNote(m, provider),
    ),
    h("div", { class: "card" }, h("h2", null, "Attempts"), attemptsTable(m)),
  );
}

/** #/deliveries/{id}: one message, its attempts, a replay button, and the unmatched hint. */
export async function deliveryPage(id: string): Promise<Node> {
  const path = `/webhook-messages/${encodeURIComponent(id)}`;
  const [first, { data: providers }] = await Promise.all([
    api<{ data: Message }>("GET", path),
    api<{ data: Provider[] }>("GET", "/providers"),
  ]);
  const m = first.data;
  const view = h("div", null, render(m, providers));
  const out = h("span", { id: "replay-result" });
  const replay = replayButton(path, m, providers, view, out);
  const unmatched = m.type === "forward" && !m.connection_id;
  return h(
    "section",
    null,
    h(
      "div",
      { class: "spread" },
      h("h1", null, "Message ", h("span", { class: "mono" }, id)),
      h(
        "a",
        { id: "delivery-operations", href: hashLink("/logs", { kind: "webhook_delivery", q: id }) },
        "Its operations →",
      ),
      h(
        "div",
        { class: "row" },
        replay,
        h("a", { href: `#/deliveries/${encodeURIComponent(id)}?t=${Date.now()}` }, "Refresh"),
      ),
    ),
    out,
    unmatched ? unmatchedHint(m) : null,
    view,
  );
}

/** Replays the message, then shows its new attempt as it happens (for a while; Refresh reloads later). */
function replayButton(path: string, first: Message, providers: Provider[], view: HTMLElement, out: HTMLElement) {
  let m = first;
  const replay = h("button", { type: "button", id: "replay" }, "Replay");
  replay.addEventListener("click", async () => {
    replace(out);
    replay.disabled = true;
    try {
      await api("POST", `${path}/replay`);
      replace(out, h("span", { class: "ok" }, "Scheduled again, with the same webhook-id."));
      const before = m.attempt_count;
      const until = Date.now() + REFRESH_FOR_MS;
      const tick = async () => {
        m = (await api<{ data: Message }>("GET", path)).data;
        replace(view, render(m, providers));
        if (m.attempt_count === before && Date.now() < until && document.body.contains(view))
          setTimeout(tick, REFRESH_MS);
      };
      setTimeout(tick, REFRESH_MS);
    } catch (err) {
      replace(out, errorBox(err));
    } finally {
      replay.disabled = false;
    }
  });
  return replay;
}

/** Why a forwarded message matched no connection: the near matches, looked up as the card shows. */
function unmatchedHint(m: Message): HTMLElement {
  const hint = h(
    "div",
    { class: "card" },
    h("h2", null, "Why unmatched"),
    h("div", { id: "hint-body" }, h("p", { class: "muted" }, "Looking for near matches…")),
  );
  hintFor(m).then(
    (node) => replace(hint.querySelector("#hint-body") as HTMLElement, node),
    (err) => replace(hint.querySelector("#hint-body") as HTMLElement, errorBox(err)),
  );
  return hint;
}
