import { api, errorBox } from "../api.ts";
import { badge, breakable, duration, h, replace } from "../dom.ts";
import { secretShownOnce } from "./copy-field.ts";

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled: boolean;
  disabled_reason?: string | null;
}

export interface WebhookSettings {
  endpoints: WebhookEndpoint[];
  signing_secret_prefix: string | null;
  previous_secret_valid_until: string | null;
  signing_secret?: string;
}

interface TestAnswer {
  ok: boolean;
  status_code: number | null;
  latency_ms: number;
  response_snippet: string;
  error: string | null;
}

/**
 * The endpoints: add one, remove one (PUT /webhook-settings with the whole list), disable or enable
 * one (a disabled one gets no delivery), and send one a signed test message, its answer shown under it.
 */
export function endpointsCard(w: WebhookSettings, show: (w: WebhookSettings) => void): Node {
  const out = h("div", { id: "endpoints-result" });
  const run = async (call: () => Promise<{ data: WebhookSettings }>) => {
    replace(out);
    try {
      const { data } = await call();
      show(data);
      // The card was drawn again: its new result box shows the secret.
      const box = document.getElementById("endpoints-result") ?? out;
      if (data.signing_secret) replace(box, secretShownOnce(data.signing_secret));
    } catch (err) {
      replace(document.getElementById("endpoints-result") ?? out, errorBox(err, "endpoints-error"));
    }
  };
  const save = (urls: string[]) => run(() => api("PUT", "/webhook-settings", { endpoints: urls }));
  const urls = w.endpoints.map((e) => e.url);
  const input = h("input", {
    type: "text",
    id: "new-endpoint",
    class: "grow",
    placeholder: "https://example.com/webhooks",
  });
  const rows = w.endpoints.flatMap((e) => endpointRows(e, run, () => save(urls.filter((u) => u !== e.url))));
  return h(
    "div",
    { class: "card", id: "endpoints" },
    h("h2", null, "Webhook endpoints"),
    rows.length > 0
      ? h("table", { id: "endpoints-table" }, h("tbody", null, rows))
      : h("p", { class: "muted" }, "None: forwarded and auth webhooks go nowhere."),
    w.endpoints.some((e) => !e.enabled)
      ? h(
          "p",
          { class: "muted", id: "disabled-rule" },
          "A disabled endpoint gets nothing: messages are not held for it. One with no enabled endpoint left ends exhausted; replay it from Deliveries once an endpoint is enabled.",
        )
      : null,
    h(
      "form",
      {
        class: "row",
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          void save([...urls, input.value.trim()]);
        },
      },
      input,
      h("button", { type: "submit", id: "add-endpoint" }, "Add endpoint"),
    ),
    out,
  );
}

/** An endpoint's row (URL, state, Test / Disable or Enable / Remove) and the row its test answer goes in. */
function endpointRows(
  e: WebhookEndpoint,
  run: (call: () => Promise<{ data: WebhookSettings }>) => Promise<void>,
  remove: () => void,
): Node[] {
  const answer = h("td", { colspan: "3", class: "endpoint-test" });
  const answerRow = h("tr", { "data-test-of": e.url, hidden: true }, answer);
  const test = h("button", { type: "button", class: "secondary", "data-action": "test" }, "Send test");
  test.addEventListener("click", async () => {
    test.disabled = true;
    answerRow.hidden = false;
    replace(answer, h("span", { class: "muted" }, "Sending…"));
    try {
      const { data } = await api<{ data: TestAnswer }>("POST", `/webhook-settings/endpoints/${e.id}/test`);
      replace(answer, testResult(data));
    } catch (err) {
      replace(answer, errorBox(err));
    }
    test.disabled = false;
  });
  const toggle = e.enabled ? "disable" : "enable";
  const state = e.enabled
    ? badge("enabled", "on")
    : [badge("disabled", "failed"), e.disabled_reason ? h("div", { class: "muted" }, e.disabled_reason) : null];
  const row = h(
    "tr",
    { "data-endpoint": e.url },
    h("td", { class: "mono" }, breakable(e.url)),
    h("td", { class: "endpoint-state" }, state),
    h(
      "td",
      { class: "actions" },
      test,
      " ",
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "data-action": toggle,
          onclick: () => run(() => api("POST", `/webhook-settings/endpoints/${e.id}/${toggle}`)),
        },
        e.enabled ? "Disable" : "Enable",
      ),
      " ",
      h("button", { type: "button", class: "secondary", "data-action": "remove", onclick: remove }, "Remove"),
    ),
  );
  return [row, answerRow];
}

function testResult(t: TestAnswer): Node {
  return h(
    "div",
    { class: t.ok ? "ok" : "error", "data-ok": String(t.ok) },
    h(
      "div",
      null,
      h("strong", null, t.status_code === null ? "No answer" : `HTTP ${t.status_code}`),
      ` in ${duration(t.latency_ms)}`,
      t.error && t.status_code === null ? ` — ${t.error}` : "",
    ),
    t.response_snippet
      ? h("pre", { class: "snippet" }, t.response_snippet)
      : h("div", { class: "muted" }, "Empty body."),
  );
}
