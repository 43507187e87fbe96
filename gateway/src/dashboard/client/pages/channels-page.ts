import { api, errorBox, qs } from "../api.ts";
import { badge, connectionLink, h, hashLink, hashQuery, replace, when } from "../dom.ts";
import type { Channel, Integration } from "../types.ts";

/** Channels expiring within this are "expiring soon": the renewal script runs daily (spec: Limits). */
const SOON_MS = 24 * 3_600_000;

interface StopAllResult {
  stopped: string[];
  failed: { channel_id: string; connection_id: string; code: string; message: string }[];
}

/** The group a channel is shown in. */
export function channelGroup(c: Channel, now = Date.now()): "active" | "expiring" | "ended" {
  if (c.state !== "active") return "ended";
  return c.expiration && Date.parse(c.expiration) - now < SOON_MS ? "expiring" : "active";
}

/** A table of channels. */
export function channelsTable(channels: Channel[], id = "channels-table"): Node {
  if (channels.length === 0) return h("p", { class: "muted" }, "None.");
  return h(
    "table",
    { id },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["Channel id", "Kind", "State", "Connection", "Resource", "Expires", "Last message"].map((t) =>
          h("th", null, t),
        ),
      ),
    ),
    h("tbody", null, channels.map(channelRow)),
  );
}

/** A channel's row: its id (linking to its calls upstream in the operations log), kind, state, connection. */
function channelRow(c: Channel): Node {
  const group = channelGroup(c);
  return h(
    "tr",
    { "data-channel-id": c.id, "data-state": c.state, "data-kind": c.kind ?? "" },
    h(
      "td",
      { class: "mono" },
      // Its calls upstream (created, renewed, stopped by Junction) in the operations log.
      h(
        "a",
        { class: "channel-calls", href: hashLink("/logs", { kind: "channel_call", tag: `channel:${c.id}` }) },
        c.id,
      ),
    ),
    h("td", { class: "channel-kind" }, c.kind || "—"),
    h("td", null, badge(group === "expiring" ? "expiring soon" : c.state, group === "expiring" ? "expiring" : c.state)),
    h("td", null, connectionLink(c.provider_config_key, c.connection_id)),
    h("td", { class: "mono" }, c.resource_uri),
    h("td", null, when(c.expiration)),
    h("td", null, String(c.last_message_number)),
  );
}

/** What a rollback did: how many channels stopped, each that could not be, and a link to reload. */
function showStopResult(out: HTMLElement, key: string, data: StopAllResult): void {
  replace(
    out,
    h(
      "p",
      { class: data.failed.length ? "error" : "ok", id: "stop-all-summary" },
      `Stopped ${data.stopped.length} channel(s).${data.failed.length ? ` ${data.failed.length} could not be stopped:` : ""}`,
    ),
    data.failed.length
      ? h(
          "ul",
          null,
          data.failed.map((f) =>
            h("li", null, h("code", null, f.channel_id), ` (${f.connection_id}): ${f.message} [${f.code}]`),
          ),
        )
      : null,
    h("p", null, h("a", { href: `${hashLink("/channels", { integration: key })}&t=${Date.now()}` }, "Reload the list")),
  );
}

/** "Stop all for this integration" (spec: Rollback), behind a confirmation naming the integration. */
function stopAll(key: string, active: number): HTMLElement {
  const out = h("div", { id: "stop-all-result" });
  const confirmBox = h("div", { class: "hint", id: "stop-all-confirm", hidden: true });
  const typed = h("input", { type: "text", id: "stop-all-typed", placeholder: key, autocomplete: "off" });
  const go = h("button", { type: "button", class: "danger", id: "stop-all-go" }, "Stop all");
  replace(
    confirmBox,
    h(
      "p",
      null,
      `This stops ${active} active channel(s) of ${key} upstream, through each connection's credentials; notifications cease. Re-enable by creating new channels. Type the integration id to confirm.`,
    ),
    h("div", { class: "row" }, typed, go),
  );
  const open = h(
    "button",
    { type: "button", class: "danger", id: "stop-all", disabled: active === 0 },
    `Stop all channels of ${key}…`,
  );
  open.addEventListener("click", () => {
    confirmBox.hidden = false;
    typed.focus();
  });
  go.addEventListener("click", async () => {
    if (typed.value.trim() !== key) {
      replace(out, h("p", { class: "error" }, `Type “${key}” to confirm.`));
      return;
    }
    go.disabled = true;
    replace(out, h("p", { class: "muted" }, "Stopping…"));
    try {
      const { data } = await api<{ data: StopAllResult }>("POST", "/channels/stop-all", { integration: key });
      confirmBox.hidden = true;
      showStopResult(out, key, data);
    } catch (err) {
      replace(out, errorBox(err));
    } finally {
      go.disabled = false;
    }
  });
  return h("div", { class: "card" }, open, confirmBox, out);
}

/** #/channels?integration=: channels by state, and the rollback. */
export async function channelsPage(): Promise<Node> {
  const integration = hashQuery().get("integration") ?? "";
  const [{ data: integrations }, { data: channels }] = await Promise.all([
    api<{ data: Integration[] }>("GET", "/integrations"),
    api<{ data: Channel[] }>("GET", `/channels${qs({ integration })}`),
  ]);
  const select = h(
    "select",
    { id: "filter-integration" },
    h("option", { value: "" }, "All integrations"),
    integrations.map((i) => h("option", { value: i.unique_key, selected: i.unique_key === integration }, i.unique_key)),
  );
  select.addEventListener("change", () => {
    location.hash = hashLink("/channels", { integration: select.value });
  });
  const now = Date.now();
  const by = (g: string) => channels.filter((c) => channelGroup(c, now) === g);
  const activeCount = channels.filter((c) => c.state === "active").length;
  return h(
    "section",
    null,
    h("h1", null, "Channels"),
    h(
      "p",
      null,
      h(
        "a",
        { id: "channel-operations", href: hashLink("/logs", { kind: "channel_call", integration }) },
        "Channel calls in the log →",
      ),
    ),
    h("div", { class: "card row" }, h("label", { for: "filter-integration" }, "Integration"), select),
    integration
      ? stopAll(integration, activeCount)
      : h("p", { class: "muted" }, "Pick an integration to stop all its channels."),
    h("h2", null, "Active"),
    channelsTable(by("active"), "channels-active"),
    h("h2", null, "Expiring within a day"),
    channelsTable(by("expiring"), "channels-expiring"),
    h("h2", null, "Stopped or expired"),
    channelsTable(by("ended"), "channels-ended"),
  );
}
