import { escapeHtml } from "../routes/oauth/html-page.ts";

export interface ConsentView {
  requestId: string;
  clientName: string;
  /** Where the client's identity comes from: its metadata document's host, or "registered". */
  clientOrigin: string;
  endUser: string;
  /** Integration names, with whether the end user has a connection of each. */
  integrations: { name: string; connected: boolean }[];
  /** Every integration of the environment (the URL names none). */
  allIntegrations: boolean;
  /** The client's redirect URI's origin: the form's answer redirects there. */
  redirectOrigin: string;
}

/**
 * The Connect UI's consent page for an MCP client: who asks (the client), for whom (the end user),
 * to what (the integrations' tools), with Allow and Deny. No script; never framed; the form posts
 * here, and its answer redirects to the client (hence that origin in form-action).
 */
export function consentPage(view: ConsentView, requestTag: string): Response {
  const items = view.integrations
    .map((i) => `<li>${escapeHtml(i.name)}${i.connected ? "" : ' <span class="note">(not connected yet)</span>'}</li>`)
    .join("");
  const what = view.allIntegrations
    ? "the tools of every integration"
    : `the tools of ${view.integrations.length === 1 ? "this integration" : "these integrations"}`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${escapeHtml(view.clientName)} · Junction</title>
<meta name="junction-code" content="mcp_consent">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.3rem}.who{font-weight:600}.note{color:#666;font-size:.9rem}.code{color:#666;font-size:.8rem}
form{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
button[value=allow]{background:#0b57d0;border-color:#0b57d0;color:#fff}</style></head>
<body><main id="consent" data-code="mcp_consent">
<h1><span class="who" id="client-name">${escapeHtml(view.clientName)}</span> wants to use your connected accounts</h1>
<p class="note">Client: <span id="client-origin">${escapeHtml(view.clientOrigin)}</span></p>
<p>For <span class="who" id="end-user">${escapeHtml(view.endUser)}</span>. If you allow it, this app can run ${what} on your connections:</p>
<ul id="integrations">${view.allIntegrations ? "<li>Every integration</li>" : items}</ul>
<p class="note">It can reach your connections only, never another user's. The app's access can be revoked at any time.</p>
<form method="post" action="/connect/mcp/consent">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>
<p class="code">Request id: ${escapeHtml(requestTag)}</p>
</main></body></html>`;
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${view.redirectOrigin}`,
    },
  });
}
