import { h } from "../../dashboard/client/dom.ts";
import { ApiError, type ConnectField, type Integration, type Provider, submitFields } from "./api.ts";
import { type App, avatar, close, render, say } from "./app.ts";
import { type AuthOutcome, authorize } from "./authorize.ts";
import { framed, post } from "./parent.ts";

export interface ConnectStep {
  app: App;
  integration: Integration;
  provider: Provider;
  /** Back to the list; none when the session allows one integration only. */
  onBack?: () => void;
  /** The session ended (expired, unknown): the caller shows its error screen. */
  onSessionError: (err: ApiError) => void;
}

/** The message for a failed attempt, in the page's words, from the error type of Nango's events. */
function failureText(s: ConnectStep, errorType: string): string {
  const name = s.integration.display_name;
  const key = (
    {
      callback_err: "declined",
      blocked_by_browser: "popupBlocked",
      window_closed: "popupClosed",
      token_err: "providerError",
      connection_validation_failed: "invalidCredentials",
    } as const
  )[errorType];
  return say(s.app.words, key ?? "unknownError", { name });
}

/** Step 2: what connecting this integration takes (a sign-in window, a form, or both) and its errors. */
export function showConnect(s: ConnectStep, failure?: { errorType: string; detail: string }): void {
  const { words } = s.app;
  const name = s.integration.display_name;
  const oauth = s.provider.auth_mode === "OAUTH2";
  const preset = s.app.session.integrations_config_defaults?.[s.integration.unique_key]?.connection_config ?? {};
  const fields = s.provider.connect_fields.filter((f) => preset[f.key] === undefined);
  const intro = oauth ? (fields.length > 0 ? "formFieldsThenOauth" : "oauthIntro") : "formIntro";
  const button = h(
    "button",
    { type: "submit", class: "primary", id: "connect-button" },
    failure ? words.tryAgain : say(words, oauth ? "continueTo" : "connectTo", { name }),
  );
  const status = h("p", { class: "status", id: "status", role: "status" });
  const form = h(
    "form",
    { id: "connect-form", novalidate: true },
    fields.map((f, i) => fieldRow(s, f, i === 0 && !failure)),
    failure
      ? h(
          "div",
          { class: "alert", role: "alert", id: "error" },
          h("p", null, failureText(s, failure.errorType)),
          failure.detail ? h("p", { class: "detail" }, failure.detail) : null,
        )
      : null,
    button,
    status,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const values = readFields(form, fields, words.required);
    if (!values) return;
    button.disabled = true;
    status.textContent = oauth ? say(words, "waiting", { name }) : words.connecting;
    form.setAttribute("aria-busy", "true");
    const attempt = oauth
      ? authorize({
          key: s.integration.unique_key,
          token: s.app.token,
          websocketsPath: s.app.session.websocketsPath,
          ...(fields.length > 0 ? { fields: values } : {}),
        })
      : submitWithForm(s, values);
    void attempt.then((outcome) => settle(s, outcome));
  });
  const docs = s.app.session.overrides?.[s.integration.unique_key]?.docs_connect;
  render({
    words,
    step: 1,
    ...(s.onBack ? { onBack: s.onBack } : {}),
    content: [
      h("div", { class: "hero" }, avatar(name, s.provider.name, "large")),
      h("h1", { id: "title", tabindex: "-1" }, say(words, "connectTo", { name })),
      h("p", { class: "muted" }, say(words, intro, { name })),
      docs ? h("p", null, h("a", { href: docs, target: "_blank", rel: "noopener" }, words.whereToFind)) : null,
      form,
    ],
  });
  if (failure) button.focus();
}

function fieldRow(s: ConnectStep, f: ConnectField, first: boolean): HTMLElement {
  const id = `field-${f.key}`;
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, f.label),
    h("input", {
      id,
      name: f.key,
      type: f.secret ? "password" : "text",
      autocomplete: "off",
      spellcheck: "false",
      required: true,
      "aria-describedby": `${id}-help ${id}-error`,
      autofocus: first,
    }),
    h("p", { class: "field-error", id: `${id}-error` }),
    f.docs_url
      ? h(
          "p",
          { class: "help", id: `${id}-help` },
          h("a", { href: f.docs_url, target: "_blank", rel: "noopener" }, s.app.words.whereToFind, " ↗"),
        )
      : null,
  );
}

/** The fields' values, or undefined (each empty field marked, the first focused) when one is missing. */
function readFields(
  form: HTMLFormElement,
  fields: ConnectField[],
  required: string,
): Record<string, string> | undefined {
  const values: Record<string, string> = {};
  let firstEmpty: HTMLInputElement | undefined;
  for (const f of fields) {
    const input = form.querySelector<HTMLInputElement>(`#field-${CSS.escape(f.key)}`) as HTMLInputElement;
    const error = form.querySelector(`#field-${CSS.escape(f.key)}-error`) as HTMLElement;
    const value = input.value.trim();
    input.setAttribute("aria-invalid", value === "" ? "true" : "false");
    error.textContent = value === "" ? required : "";
    if (value === "") firstEmpty ??= input;
    values[f.key] = value;
  }
  firstEmpty?.focus();
  return firstEmpty ? undefined : values;
}

async function submitWithForm(
  s: ConnectStep,
  values: Record<string, string>,
): Promise<AuthOutcome & { sessionEnded?: boolean }> {
  try {
    const res = await submitFields(s.app.token, s.integration.unique_key, values);
    return { ok: true, connectionId: res.connectionId, isPending: false };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 401) {
      s.onSessionError(err);
      return { ok: false, errorType: err.code, message: err.message, sessionEnded: true };
    }
    // Refused fields (400, 409: the provider or the definition said no) are the user's to correct.
    const errorType = err.status === 400 || err.status === 409 ? "connection_validation_failed" : "unknown_error";
    return { ok: false, errorType, message: err.message };
  }
}

/** Reports the outcome as Nango's UI does, then shows success or the step again with the error. */
function settle(s: ConnectStep, outcome: AuthOutcome & { sessionEnded?: boolean }): void {
  if (outcome.sessionEnded) return;
  if (outcome.ok) {
    post({
      type: "connect",
      payload: {
        providerConfigKey: s.integration.unique_key,
        connectionId: outcome.connectionId,
        isPending: outcome.isPending,
      },
    });
    showSuccess(s);
    return;
  }
  if (outcome.errorType === "connect_session_expired" || outcome.errorType === "unknown_connect_session_token") {
    s.onSessionError(new ApiError(401, outcome.errorType, outcome.message));
    return;
  }
  const message = failureText(s, outcome.errorType);
  // As Nango's UI: a closed sign-in window is an event only when the app asked for it (detectClosedAuthWindow).
  if (outcome.errorType !== "window_closed" || s.app.detectClosedAuthWindow) {
    post({ type: "error", payload: { errorType: outcome.errorType, errorMessage: message } });
  }
  showConnect(s, { errorType: outcome.errorType, detail: outcome.message });
}

/** Step 3: connected. */
function showSuccess(s: ConnectStep): void {
  const { words } = s.app;
  const name = s.integration.display_name;
  render({
    words,
    step: 2,
    content: [
      h(
        "div",
        { class: "hero" },
        avatar(name, s.provider.name, "large"),
        h("span", { class: "tick", "aria-hidden": "true" }, "✓"),
      ),
      h("h1", { id: "title", tabindex: "-1", "data-result": "connected" }, words.successTitle),
      h("p", { class: "muted" }, say(words, framed ? "successMessage" : "successTab", { name })),
      framed
        ? h("button", { type: "button", class: "primary", id: "finish", onclick: close, autofocus: true }, words.finish)
        : null,
    ],
  });
}
