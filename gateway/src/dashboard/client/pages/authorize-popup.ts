import { api, errorBox, page, qs } from "../api.ts";
import { connectionLink, h, replace } from "../dom.ts";
import type { ConnectionListItem } from "../types.ts";

const POLL_MS = 1000;
const GIVE_UP_MS = 10 * 60_000;

interface AuthMessage {
  type: "junction:auth";
  success: boolean;
  code: string;
  providerConfigKey: string;
  /** Only on success: a failure names no connection. */
  connectionId?: string;
}

const isAuthMessage = (d: unknown): d is AuthMessage =>
  typeof d === "object" && d !== null && (d as { type?: unknown }).type === "junction:auth";

/** Origins the callback page may post from: this page's and the configured base URL's. */
function trustedOrigin(origin: string): boolean {
  try {
    return origin === location.origin || origin === new URL(page.baseUrl).origin;
  } catch {
    return origin === location.origin;
  }
}

async function integrationConnections(key: string): Promise<ConnectionListItem[]> {
  const res = await api<{ connections: ConnectionListItem[] }>(
    "GET",
    `/connections${qs({ integrationId: key, limit: 100 })}`,
  );
  return res.connections;
}

/**
 * The error page Junction showed in the window instead of sending it upstream (it is on this origin:
 * readable; a provider's page is not, and reading it throws). Null while none is shown.
 */
function popupError(popup: Window | null): { code: string; message: string } | null {
  try {
    if (!popup || popup.closed || popup.location.origin !== location.origin) return null;
    if (!popup.location.pathname.startsWith("/oauth/connect/")) return null;
    const code = popup.document.querySelector("#result")?.getAttribute("data-code");
    if (!code) return null;
    return { code, message: popup.document.getElementById("message")?.textContent ?? "" };
  } catch {
    return null;
  }
}

/**
 * Starts an authorization in a new window (spec: Authentication 4: a test connection created in the
 * dashboard and authorized by logging in upstream) and reports into `out` when it completes: from the
 * callback page's postMessage, or, when that does not come (no opener), by polling the connection list.
 * `sessionPath` is /connect/sessions or /connect/sessions/reconnect.
 */
export async function authorizeInPopup(
  key: string,
  sessionPath: string,
  body: unknown,
  out: HTMLElement,
): Promise<void> {
  // Opened now, inside the click, so that popup blockers allow it; pointed at Junction once the session exists.
  const popup = window.open("about:blank", "junction-authorize", "popup,width=560,height=720");
  replace(out, h("p", { class: "muted", id: "authorize-status" }, "Starting…"));
  let known: Set<string>;
  let token: string;
  try {
    known = new Set((await integrationConnections(key)).map((c) => c.id));
    token = (await api<{ data: { token: string } }>("POST", sessionPath, body)).data.token;
  } catch (err) {
    popup?.close();
    replace(out, errorBox(err, "authorize-error"));
    return;
  }
  const url = new URL(`/oauth/connect/${encodeURIComponent(key)}${qs({ connect_session_token: token })}`, location.href)
    .href;
  if (popup) popup.location.href = url;
  replace(
    out,
    h(
      "p",
      { class: "muted", id: "authorize-status" },
      "Waiting for the authorization in the other window… ",
      h("a", { href: url, target: "_blank", rel: "opener" }, popup ? "Open it again" : "Open the authorization window"),
    ),
  );
  watchAuthorization(popup, key, known, out);
}

/** Reports the authorization's end into `out`: the callback page's message, or what polling finds first. */
function watchAuthorization(popup: Window | null, key: string, known: Set<string>, out: HTMLElement): void {
  const started = Date.now();
  let popupClosedAt = 0;
  let done = false;
  const finish = (node: Node) => {
    if (done) return;
    done = true;
    window.removeEventListener("message", onMessage);
    replace(out, node);
  };
  const onMessage = (e: MessageEvent) => {
    if (!trustedOrigin(e.origin) || !isAuthMessage(e.data) || e.data.providerConfigKey !== key) return;
    if (e.data.success) finish(connectedNode(key, e.data.connectionId ?? ""));
    else
      finish(
        errorResult(e.data.code, `The authorization did not complete: ${e.data.code}. The other window says why.`),
      );
  };
  window.addEventListener("message", onMessage);

  // A re-authorization keeps its id: only the message tells about it. A new connection also shows up in the list.
  const poll = async () => {
    if (done) return;
    const refused = popupError(popup);
    if (refused) {
      finish(refusedNode(refused));
      popup?.close();
      return;
    }
    if (popup?.closed && !popupClosedAt) popupClosedAt = Date.now();
    const ended = endedWaiting(started, popupClosedAt);
    if (ended) return finish(ended);
    const fresh = await newConnection(key, known);
    if (fresh) return finish(connectedNode(key, fresh.connection_id));
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

/** Why polling stops without a connection: the window closed (a poll ago), or ten minutes passed. */
function endedWaiting(started: number, popupClosedAt: number): Node | null {
  // The list is asked once more after the window closed, so a connection made just before is still seen.
  if (popupClosedAt && Date.now() - popupClosedAt > POLL_MS) {
    return errorResult(
      "window_closed",
      "The authorization window was closed before a connection was made; press the button to start again.",
    );
  }
  if (Date.now() - started > GIVE_UP_MS) {
    return h("p", { class: "error", id: "authorize-result" }, "No connection after 10 minutes; start again.");
  }
  return null;
}

/** A connection of the integration that was not there before, if one is now. */
async function newConnection(key: string, known: Set<string>): Promise<ConnectionListItem | undefined> {
  try {
    return (await integrationConnections(key)).find((c) => !known.has(c.id));
  } catch {
    // A failed poll is tried again.
    return undefined;
  }
}

function connectedNode(key: string, connectionId: string): Node {
  return h(
    "p",
    { class: "ok", id: "authorize-result", "data-connection-id": connectionId },
    "Connected: ",
    connectionLink(key, connectionId),
  );
}

function refusedNode(refused: { code: string; message: string }): Node {
  return h(
    "div",
    { class: "error", role: "alert", id: "authorize-result", "data-code": refused.code },
    `The authorization could not start: ${refused.message} (code: ${refused.code}). Fix it and press the button again.`,
  );
}

/** An error result naming its code. */
function errorResult(code: string, text: string): Node {
  return h("p", { class: "error", id: "authorize-result", "data-code": code }, text);
}
