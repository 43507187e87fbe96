import { api, errorBox } from "../api.ts";
import { h, replace } from "../dom.ts";

interface Retention {
  payload_days: number;
  records_days: number;
}

const dayInput = (id: string) =>
  h("input", { type: "number", id, min: "0", max: "3650", step: "1", value: "0", required: true });

/**
 * How long the integration's sync records are kept (GET and PUT /integrations/{id}/records-retention),
 * loaded on its own: the page shows even where the scripts service does not answer.
 */
export function recordsRetentionCard(key: string): HTMLElement {
  const path = `/integrations/${encodeURIComponent(key)}/records-retention`;
  const payload = dayInput("retention-payload-days");
  const records = dayInput("retention-records-days");
  const out = h("div", { id: "records-retention-result" });
  const show = (r: Retention) => {
    payload.value = String(r.payload_days);
    records.value = String(r.records_days);
  };
  api<{ data: Retention }>("GET", path).then(
    ({ data }) => show(data),
    (err: unknown) => replace(out, errorBox(err, "records-retention-error")),
  );
  const save = async (e: Event) => {
    e.preventDefault();
    replace(out);
    try {
      const { data } = await api<{ data: Retention }>("PUT", path, {
        payload_days: Number(payload.value),
        records_days: Number(records.value),
      });
      show(data);
      replace(out, h("p", { class: "ok" }, "Saved."));
    } catch (err) {
      replace(out, errorBox(err, "records-retention-error"));
    }
  };
  return h(
    "form",
    { class: "card", id: "records-retention-form", onsubmit: save },
    h("h2", null, "Records retention"),
    h(
      "p",
      { class: "muted" },
      "How long your syncs' records are kept, in days; 0 keeps them. Nothing your app has not read yet (GET /records, the change feed) is ever removed.",
    ),
    h("label", { for: "retention-payload-days" }, "Prune payloads unchanged for (days) "),
    payload,
    h("label", { for: "retention-records-days" }, " Delete records without a sync run for (days) "),
    records,
    " ",
    h("button", { type: "submit", id: "save-records-retention" }, "Save"),
    out,
  );
}
