import { escapeHtml } from "../routes/oauth/html-page.ts";

/**
 * The Connect UI's headers: only its own scripts, styles and requests; framed only by `frameAncestors`
 * (the operator's JUNCTION_CONNECT_UI_FRAME_ANCESTORS), by no page when that is empty.
 */
export function connectUiHeaders(
  contentType: string,
  frameAncestors: readonly string[],
  extra: Record<string, string> = {},
): Record<string, string> {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(" ") : "'none'";
  return {
    "content-type": contentType,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    // The consent screen's address is not passed to the provider, nor the session token to anyone.
    "referrer-policy": "no-referrer",
    // form-action: the one form this page posts (a provider's connect fields, into the sign-in window)
    // is answered with a redirect to the provider's consent screen, whose host the page cannot know.
    "content-security-policy": `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self' https: http:; frame-ancestors ${ancestors}; base-uri 'none'`,
    ...extra,
  };
}

/**
 * The Connect UI's page: its script renders every step into #connect. The allowed frame ancestors are
 * named to the script too: it takes the session token only from a parent page of one of those origins.
 * Assets are relative: the page is always served at a path ending in `/`.
 */
export function connectUiPage(frameAncestors: readonly string[]): string {
  return `<!doctype html>
<html lang="en" data-theme="system"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect</title>
<meta name="junction-frame-ancestors" content="${escapeHtml(frameAncestors.join(" "))}">
<link rel="stylesheet" href="ui.css">
<script type="module" src="ui.js"></script></head>
<body><div class="backdrop"><div id="connect" class="card" role="dialog" aria-modal="true" aria-labelledby="title" aria-busy="true">
<div class="step loading"><div class="spinner" aria-hidden="true"></div><p class="muted" id="title">Loading…</p></div>
</div></div><noscript><p class="noscript">This page needs JavaScript. Ask the app that sent you here for a connect link.</p></noscript></body></html>`;
}
