/**
 * The Connect UI's side of the protocol of Nango's `openConnectUI`: the UI posts `ready`, the page that
 * frames it answers `session_token`; the UI reports `connect`, `error` and `close`. Messages are taken only
 * from the framing page itself, and only when its origin is one the operator allows to frame the UI.
 */

export type UiEvent =
  | { type: "ready" }
  | { type: "connect"; payload: { providerConfigKey: string; connectionId: string; isPending: boolean } }
  | { type: "error"; payload: { errorType: string; errorMessage: string } }
  | { type: "close" };

export const framed = window.parent !== window;

/** The framing page's origin as the browser knows it (ancestorOrigins in Chromium, else the referrer's). */
function parentOrigin(): string {
  const ancestors = (window.location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] ?? "*";
  try {
    return document.referrer ? new URL(document.referrer).origin : "*";
  } catch {
    return "*";
  }
}

/** Posts an event to the framing page (nothing when the UI is a page of its own: the connect link). */
export function post(event: UiEvent): void {
  // The frame-ancestors policy already limits who frames the UI; the origin narrows it to that one page.
  if (framed) window.parent.postMessage(event, parentOrigin());
}

/** The origins allowed to frame the UI (the page's meta tag), `*.` wildcards included. */
function allowedOrigin(origin: string): boolean {
  const allowed = document.querySelector('meta[name="junction-frame-ancestors"]')?.getAttribute("content") ?? "";
  return allowed
    .split(" ")
    .filter(Boolean)
    .some((pattern) => {
      if (!pattern.includes("*.")) return pattern === origin;
      const [scheme, host] = pattern.split("://*.");
      return origin.startsWith(`${scheme}://`) && origin.endsWith(`.${host}`);
    });
}

/** Calls `onToken` with each session token the framing page sends, and `onTheme` with a theme change. */
export function listenToParent(onToken: (token: string) => void, onTheme: (theme: string) => void): void {
  window.addEventListener("message", (e: MessageEvent) => {
    if (!framed || e.source !== window.parent || !allowedOrigin(e.origin)) return;
    const data = e.data as { type?: unknown; sessionToken?: unknown; payload?: { defaultTheme?: unknown } };
    if (data?.type === "session_token" && typeof data.sessionToken === "string" && data.sessionToken !== "") {
      onToken(data.sessionToken);
    } else if (data?.type === "settings_changed" && typeof data.payload?.defaultTheme === "string") {
      onTheme(data.payload.defaultTheme);
    }
  });
}
