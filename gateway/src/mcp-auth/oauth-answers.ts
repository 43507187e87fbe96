/**
 * An OAuth error as RFC 6749 section 5.2 and RFC 7591 section 3.2.2 spell it (`error`,
 * `error_description`): what MCP clients parse at the token and registration endpoints, in place of
 * Junction's error body.
 */
export function oauthError(status: number, error: string, description: string): Response {
  return oauthJson({ error, error_description: description }, status);
}

/** A JSON answer of the authorization server: never cached (it may hold tokens). */
export function oauthJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" },
  });
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Why a redirect URI is refused, or undefined when it is fine: https, or http to a loopback host (a
 * native client's local listener, RFC 8252 section 7.3); absolute, without a fragment or credentials.
 */
export function redirectUriProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (url.hash !== "" || raw.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "holds credentials";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return "must be https, or http to 127.0.0.1, [::1] or localhost";
}
