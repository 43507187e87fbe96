/**
 * Who hears how a browser flow ended. The result page posts its message to one origin: the
 * page that started the flow (the app that opened the popup, read from the `origin` Junction's own
 * connect page passes along, else from the Referer of the request that started it), or else the
 * gateway's own. Never "*": another page that opened or replayed the URL hears nothing.
 */

/** `value` as an http(s) origin (a URL's scheme://host[:port]), or "" when it is not one. */
export function originOf(value: string | null | undefined): string {
  if (!value) return "";
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : "";
  } catch {
    return "";
  }
}

/** The origin of the page that started a flow: an explicit `origin` query parameter, else the Referer's. */
export function startingOrigin(req: Request, url: URL): string {
  const explicit = url.searchParams.get("origin");
  // Only an exact origin is taken from the query: a path or a query there is a mistake, not an origin.
  if (explicit !== null) return originOf(explicit) === explicit ? explicit : "";
  return originOf(req.headers.get("referer"));
}

export interface FlowResult {
  success: boolean;
  /** The page's stable code ("connected", "state_already_used"...). */
  code: string;
  message: string;
  providerConfigKey: string;
  /** Only on success: a failure says nothing about any connection. */
  connectionId?: string;
}

/**
 * The message for the opener, in Junction's shape (`type: "junction:auth"`) and, in the same object,
 * Nango's (`eventType` AUTHORIZATION_SUCEEDED, sic, or AUTHORIZATION_FAILED, with `data`), which
 * Nango's frontend SDK waits for.
 */
export function openerMessage(result: FlowResult): Record<string, unknown> {
  const connectionId = result.success ? (result.connectionId ?? "") : undefined;
  return {
    type: "junction:auth",
    success: result.success,
    code: result.code,
    providerConfigKey: result.providerConfigKey,
    ...(connectionId !== undefined ? { connectionId } : {}),
    eventType: result.success ? "AUTHORIZATION_SUCEEDED" : "AUTHORIZATION_FAILED",
    data: result.success
      ? { connectionId, providerConfigKey: result.providerConfigKey }
      : { providerConfigKey: result.providerConfigKey, error: { type: result.code, message: result.message } },
  };
}
