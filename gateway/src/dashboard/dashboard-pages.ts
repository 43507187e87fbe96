import { escapeHtml } from "../routes/oauth/html-page.ts";

/**
 * Headers of every dashboard response: only this origin's scripts, styles and requests, never framed,
 * never sniffed. Pages and data are not cached (they are behind the login).
 */
export function dashboardHeaders(contentType: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": contentType,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "content-security-policy":
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ...extra,
  };
}

/** An HTML page of the dashboard. */
export function htmlResponse(status: number, html: string, extra: Record<string, string> = {}): Response {
  return new Response(html, { status, headers: dashboardHeaders("text/html; charset=utf-8", extra) });
}

/** The login page: a plain form (it works without scripts) posting the secret key to /dashboard/login. */
export function loginPage(message = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in · Junction</title><link rel="stylesheet" href="/dashboard/assets/dashboard.css"></head>
<body class="login"><main class="login-box">
<h1>Junction</h1>
<p>Log in with a secret key of this Junction (printed on first start, or <code>JUNCTION_SECRET_KEY</code>).</p>
<form method="post" action="/dashboard/login" id="login-form">
<label for="secret_key">Secret key</label>
<input type="password" id="secret_key" name="secret_key" autocomplete="off" required autofocus spellcheck="false">
<button type="submit" id="login">Log in</button>
</form>
${message ? `<p class="error" id="login-error" role="alert">${escapeHtml(message)}</p>` : ""}
</main></body></html>`;
}

/** The dashboard's single page: the app script renders every view into #app (hash routes). */
export function shellPage(csrfToken: string, baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Junction dashboard</title>
<meta name="junction-csrf" content="${escapeHtml(csrfToken)}">
<meta name="junction-base-url" content="${escapeHtml(baseUrl)}">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script type="module" src="/dashboard/assets/app.js"></script></head>
<body><header class="top"><a class="brand" href="#/overview">Junction</a>
<nav id="nav">
<a href="#/overview" data-nav="overview">Overview</a>
<a href="#/integrations" data-nav="integrations">Integrations</a>
<a href="#/connections" data-nav="connections">Connections</a>
<a href="#/deliveries" data-nav="deliveries">Deliveries</a>
<a href="#/channels" data-nav="channels">Channels</a>
<a href="#/scripts" data-nav="scripts">Scripts</a>
<a href="#/logs" data-nav="logs">Logs</a>
<a href="#/settings" data-nav="settings">Settings</a>
</nav><button type="button" id="logout" class="link">Log out</button></header>
<main id="app" aria-live="polite"><p class="muted">Loading…</p></main></body></html>`;
}
