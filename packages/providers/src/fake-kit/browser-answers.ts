/** A 302 to `redirectUri` with `query` added (undefined values left out): how an authorization server answers. */
export function redirectWith(redirectUri: string, query: Record<string, string | undefined>): Response {
  const location = new URL(redirectUri);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) location.searchParams.set(name, value);
  }
  return new Response(null, { status: 302, headers: { location: location.toString() } });
}

/** Text made safe for HTML (consent and error pages). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A sign-in and consent page: an account field (`#login_email`) and two buttons (`#deny`, `#allow`)
 * posting `decision` and the original request's parameters to `action`. The ids are what browser tests click.
 */
export function consentPage(page: {
  title: string;
  heading: string;
  scopes: readonly string[];
  action: string;
  params: URLSearchParams;
  email: string;
  decisions: { deny: string; allow: string; allowLabel: string };
}): Response {
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(page.title)}</title></head>
<body>
  <h1>${escapeHtml(page.heading)}</h1>
  <ul>${page.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>
  <form id="consent" method="post" action="${escapeHtml(page.action)}">
      ${hiddenFields(page.params)}
      <label>Account <input id="login_email" name="login_email" value="${escapeHtml(page.email)}"></label>
      <button id="deny" type="submit" name="decision" value="${page.decisions.deny}">Cancel</button>
      <button id="allow" type="submit" name="decision" value="${page.decisions.allow}">${page.decisions.allowLabel}</button>
  </form>
</body></html>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}

/** The form fields that carry the authorization request's parameters to the approve URL. */
function hiddenFields(params: URLSearchParams): string {
  return [...params]
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("\n      ");
}
