import { api, errorBox } from "../api.ts";
import { badge, fields, h, replace, when } from "../dom.ts";
import { copyField, secretShownOnce } from "./copy-field.ts";
import { secretKeysCard } from "./secret-keys-card.ts";
import { endpointsCard, type WebhookSettings } from "./webhook-endpoints-card.ts";

interface SessionInfo {
  environment_id: string;
  key_id: string;
  base_url: string;
  redirect_uri: string;
  credential_reads: boolean;
  metrics_enabled: boolean;
  tracing_enabled: boolean;
}

const GRACE_HOURS = [0, 1, 24, 72, 168];
/** The grace period last chosen, kept when the card is drawn again after a rotation. */
let graceHours = "24";

/** #/settings: the environment, webhook endpoints, the signing secret, secret keys, and what the operator set at start. */
export async function settingsPage(): Promise<Node> {
  const [{ data: session }, { data: webhooks }] = await Promise.all([
    api<{ data: SessionInfo }>("GET", "/session"),
    api<{ data: WebhookSettings }>("GET", "/webhook-settings"),
  ]);
  const keys = await secretKeysCard(session.key_id);
  const webhookBox = h("div");
  const secretBox = h("div");
  const show = (w: WebhookSettings) => {
    replace(webhookBox, endpointsCard(w, show));
    replace(secretBox, signingSecretCard(w, show));
  };
  show(webhooks);
  return h(
    "section",
    { id: "settings" },
    h("h1", null, "Settings"),
    h(
      "div",
      { class: "card", id: "environment" },
      h("h2", null, "Environment"),
      fields([
        ["Environment id", h("code", { id: "environment-id" }, session.environment_id)],
        ["Base URL", h("code", null, session.base_url)],
      ]),
      h("h2", null, "Callback URL"),
      h("p", { class: "muted" }, "Register it upstream as the redirect URI of each OAuth client."),
      copyField("callback-url", session.redirect_uri),
    ),
    webhookBox,
    secretBox,
    keys,
    h(
      "div",
      { class: "card", id: "observability" },
      h("h2", null, "Set at start (read-only)"),
      fields([
        [
          "Metrics",
          session.metrics_enabled
            ? [badge("on"), " GET /metrics with the metrics token (JUNCTION_METRICS_TOKEN)"]
            : [badge("off", "unknown"), " JUNCTION_METRICS_TOKEN is unset: /metrics answers 404"],
        ],
        [
          "Tracing",
          session.tracing_enabled
            ? [badge("on"), " OpenTelemetry traces exported over OTLP/HTTP"]
            : [badge("off", "unknown"), " OTEL_EXPORTER_OTLP_ENDPOINT is unset"],
        ],
        [
          "Credential reads",
          session.credential_reads ? "the API returns connections' tokens" : "the API never returns tokens",
        ],
      ]),
    ),
  );
}

/** The signing secret: its prefix, and a rotation with a grace period; the new one is shown once. */
function signingSecretCard(w: WebhookSettings, show: (w: WebhookSettings) => void): Node {
  const out = h("div", { id: "rotate-result" });
  const grace = h(
    "select",
    { id: "grace-hours" },
    GRACE_HOURS.map((n) =>
      h(
        "option",
        { value: String(n), selected: String(n) === graceHours },
        n === 0 ? "none" : `${n} hour${n === 1 ? "" : "s"}`,
      ),
    ),
  );
  const rotate = h("button", { type: "button", id: "rotate-secret" }, "Rotate");
  rotate.addEventListener("click", async () => {
    replace(out);
    rotate.disabled = true;
    graceHours = grace.value;
    try {
      const { data } = await api<{ data: WebhookSettings & { signing_secret: string } }>(
        "POST",
        "/webhook-settings/signing-secret",
        { grace_period_seconds: Number(grace.value) * 3600 },
      );
      show(data);
      replace(document.getElementById("rotate-result") ?? out, secretShownOnce(data.signing_secret));
    } catch (err) {
      replace(out, errorBox(err, "rotate-error"));
      rotate.disabled = false;
    }
  });
  return h(
    "div",
    { class: "card", id: "signing-secret" },
    h("h2", null, "Signing secret"),
    fields([
      ["Current", w.signing_secret_prefix ? h("code", null, `${w.signing_secret_prefix}…`) : "none yet"],
      ["Previous one valid until", when(w.previous_secret_valid_until)],
    ]),
    h("div", { class: "row" }, h("label", { for: "grace-hours" }, "Keep the old one valid for"), grace, rotate),
    out,
  );
}
