import { apiBase } from "./api.ts";

export type AuthOutcome =
  | { ok: true; connectionId: string; isPending: boolean }
  | { ok: false; errorType: string; message: string };

/** Junction's result codes (the callback page's) as the error types of Nango's authorization socket. */
const ERROR_TYPES: Record<string, string> = {
  access_denied: "callback_err",
  missing_code: "callback_err",
  missing_state: "state_err",
  unknown_state: "state_err",
  state_already_used: "state_err",
  authorization_expired: "state_err",
  upstream_error: "callback_err",
  token_exchange_refused: "token_err",
  token_endpoint_timeout: "token_err",
  token_endpoint_invalid_response: "token_err",
  token_endpoint_unreachable: "token_err",
  configuration_error: "provider_config_err",
};

const ACK_WAIT_MS = 3000;
const CLOSED_POLL_MS = 400;

/**
 * The authorization socket (the one Nango's frontend SDK opens): its client id once acknowledged, or
 * undefined when the gateway answers none in time. Results then come from the callback page's message.
 */
function openSocket(path: string, onResult: (o: AuthOutcome) => void): Promise<{ id?: string; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const base = new URL(apiBase);
    const url = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}${base.pathname.replace(/\/$/, "")}${path}`;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch {
      resolve({});
      return;
    }
    const timer = setTimeout(() => resolve({ ws }), ACK_WAIT_MS);
    ws.onerror = () => {
      clearTimeout(timer);
      resolve({});
    };
    ws.onmessage = (e) => {
      const m = JSON.parse(String(e.data)) as Record<string, string | boolean | undefined>;
      if (m.message_type === "connection_ack" && typeof m.ws_client_id === "string") {
        clearTimeout(timer);
        resolve({ id: m.ws_client_id, ws });
      } else if (m.message_type === "success") {
        onResult({ ok: true, connectionId: String(m.connection_id), isPending: m.is_pending === true });
      } else if (m.message_type === "error") {
        onResult({ ok: false, errorType: String(m.error_type), message: String(m.error_desc ?? "") });
      }
    };
  });
}

export interface AuthorizeOptions {
  key: string;
  token: string;
  websocketsPath: string;
  /** Connect fields an OAuth provider needs before its consent screen (a subdomain); posted to the window. */
  fields?: Record<string, string>;
}

/**
 * Opens the provider's consent screen in a sign-in window and resolves with how it ended: the socket's
 * word, or the callback page's message (sent to this page's origin), or the window closed first.
 * Call it from a click: the window is opened before anything is awaited, so no pop-up blocker stops it.
 */
export function authorize(o: AuthorizeOptions): Promise<AuthOutcome> {
  const name = `junction-connect-${Date.now()}`;
  const features = `popup,width=520,height=680,left=${Math.max(0, (screen.width - 520) / 2)},top=${Math.max(0, (screen.height - 680) / 2)}`;
  const popup = window.open("", name, features);
  if (!popup) return Promise.resolve({ ok: false, errorType: "blocked_by_browser", message: "" });
  return new Promise((resolve) => {
    let socket: WebSocket | undefined;
    let done = false;
    const finish = (outcome: AuthOutcome) => {
      if (done) return;
      done = true;
      window.removeEventListener("message", onMessage);
      clearInterval(poll);
      socket?.close();
      if (!popup.closed) popup.close();
      resolve(outcome);
    };
    const onMessage = (e: MessageEvent) => {
      const d = e.data as { type?: string; success?: boolean; code?: string; connectionId?: string };
      if (e.source !== popup || e.origin !== window.location.origin || d?.type !== "junction:auth") return;
      if (d.success) finish({ ok: true, connectionId: String(d.connectionId), isPending: false });
      else finish({ ok: false, errorType: ERROR_TYPES[d.code ?? ""] ?? d.code ?? "unknown_error", message: "" });
    };
    window.addEventListener("message", onMessage);
    const poll = setInterval(() => {
      if (popup.closed) finish({ ok: false, errorType: "window_closed", message: "" });
    }, CLOSED_POLL_MS);
    void openSocket(o.websocketsPath, finish).then(({ id, ws }) => {
      socket = ws;
      if (done) return socket?.close();
      navigate(popup, name, o, id);
    });
  });
}

/** Sends the sign-in window to the consent screen (through the form route when there are connect fields). */
function navigate(popup: Window, name: string, o: AuthorizeOptions, wsClientId: string | undefined): void {
  const origin = window.location.origin;
  if (o.fields) {
    const form = document.createElement("form");
    form.method = "post";
    form.target = name;
    form.action = `${apiBase}/connect/form/${encodeURIComponent(o.key)}`;
    const values = {
      ...o.fields,
      connect_session_token: o.token,
      opener_origin: origin,
      ...(wsClientId ? { ws_client_id: wsClientId } : {}),
    };
    for (const [k, v] of Object.entries(values)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = k;
      input.value = v;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
    form.remove();
    return;
  }
  const q = new URLSearchParams({ connect_session_token: o.token, origin });
  if (wsClientId) q.set("ws_client_id", wsClientId);
  popup.location.href = `${apiBase}/oauth/connect/${encodeURIComponent(o.key)}?${q}`;
}
