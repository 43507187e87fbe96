import { h } from "../../dashboard/client/dom.ts";
import { ApiError, getIntegrations, getProvider, getSession, type Integration } from "./api.ts";
import { type App, close, render, root } from "./app.ts";
import { showConnect } from "./connect-view.ts";
import { type Words, wordsFor } from "./i18n.ts";
import { showList } from "./list-view.ts";
import { framed, listenToParent, post } from "./parent.ts";

const params = new URLSearchParams(window.location.search);
const { lang, words } = wordsFor(params.get("lang"));
document.documentElement.lang = lang;

/** `light`, `dark` or `system` (the browser's); anything else is the system's. */
function setTheme(theme: string | null): void {
  document.documentElement.dataset.theme = theme === "light" || theme === "dark" ? theme : "system";
}
setTheme(params.get("theme"));
document.documentElement.classList.toggle("framed", framed);

/** A screen for what ends the flow before an integration is picked: no token, an expired or unknown session. */
function showFatal(w: Words, code: string, retry?: () => void): void {
  const message =
    code === "connect_session_expired"
      ? w.sessionExpired
      : code === "unknown_connect_session_token"
        ? w.sessionUnknown
        : code === "no_session_token"
          ? w.noToken
          : code === "network_error"
            ? w.networkError
            : w.unknownError;
  render({
    words: w,
    center: true,
    content: [
      h("div", { class: "hero" }, h("span", { class: "avatar large warn", "aria-hidden": "true" }, "!")),
      h("h1", { id: "title", tabindex: "-1", "data-error": code }, w.cannotConnect),
      h("p", { class: "muted", id: "message" }, message),
      retry ? h("button", { type: "button", class: "primary", id: "retry", onclick: retry }, w.tryAgain) : null,
      framed ? h("button", { type: "button", class: "secondary", id: "close", onclick: close }, w.close) : null,
    ],
  });
}

function fail(err: unknown, retry: () => void): void {
  const code = err instanceof ApiError ? err.code : "unknown_error";
  // An ended session cannot be retried from here: the app makes a new one.
  const ended = code === "connect_session_expired" || code === "unknown_connect_session_token";
  showFatal(words, code, ended ? undefined : retry);
}

let started = "";
async function start(token: string): Promise<void> {
  // The framing page may send its token again (setSessionToken): a new token starts over, the same one not.
  if (token === started) return;
  started = token;
  try {
    const [session, integrations] = await Promise.all([getSession(token), getIntegrations(token)]);
    const app: App = {
      token,
      session,
      integrations,
      words,
      detectClosedAuthWindow: params.get("detectClosedAuthWindow") === "true",
    };
    const single = integrations.length === 1 && session.allowed_integrations?.length === 1;
    const list = () => showList(app, pick);
    const pick = (integration: Integration) => {
      void getProvider(token, integration.provider)
        .then((provider) =>
          showConnect({
            app,
            integration,
            provider,
            ...(single ? {} : { onBack: list }),
            onSessionError: (err) => fail(err, () => undefined),
          }),
        )
        .catch((err) => fail(err, () => pick(integration)));
    };
    if (single) pick(integrations[0] as Integration);
    else list();
  } catch (err) {
    started = "";
    fail(err, () => void start(token));
  }
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && framed) close();
});
listenToParent((token) => void start(token), setTheme);
const inAddress = params.get("session_token") ?? params.get("connect_session_token");
if (inAddress) void start(inAddress);
else if (!framed) showFatal(words, "no_session_token");
// Tell the framing page the UI is ready for its token (Nango's protocol).
post({ type: "ready" });
root().dataset.ready = "true";
