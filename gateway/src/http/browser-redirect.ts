/**
 * A browser sent on to another page of an authorization (the provider's consent, a form, an MCP client's
 * redirect URI): never cached, and without a Referer that would carry this URL's query (a session token,
 * a state) to the next site.
 */
export function browserRedirect(location: string, status: 302 | 303 = 302): Response {
  return new Response(null, {
    status,
    headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}
