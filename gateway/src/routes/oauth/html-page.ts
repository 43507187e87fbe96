import { randomBytes } from "node:crypto";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageContent {
  title: string;
  /** Stable snake_case code of what happened ("connected", "unknown_state"...). */
  code: string;
  heading: string;
  message: string;
  /** Label → value rows shown under the message (empty values are left out). */
  details?: [string, string][];
  /** Raw HTML placed after the details (already escaped by the caller). */
  extraHtml?: string;
  /**
   * Sent to the window that opened this one (a popup), so the app's frontend learns the result: to
   * `origin` only (see opener.ts), never to any page that happens to be the opener.
   */
  opener?: { message: Record<string, unknown>; origin: string };
  /** The page holds a form posting to this origin (the connect page's credentials form). */
  postsForm?: boolean;
}

/**
 * A small, self-contained HTML page for the browser routes. No external resources; the only script is
 * nonce'd; no referrer (the callback URL holds the code); never cached.
 */
export function htmlPage(status: number, page: PageContent, requestId: string): Response {
  const nonce = randomBytes(16).toString("base64");
  const rows = (page.details ?? [])
    .filter(([, v]) => v !== "")
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
    .join("");
  const script = page.opener
    ? `<script nonce="${nonce}">if (window.opener) window.opener.postMessage(${safeJson(page.opener.message)}, ${safeJson(page.opener.origin)});</script>`
    : "";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Junction</title>
<meta name="junction-code" content="${escapeHtml(page.code)}">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}dt{font-weight:600;margin-top:.5rem}dd{margin:0;font-family:ui-monospace,monospace;word-break:break-all}
.code{color:#666;font-size:.85rem}a{color:#0b57d0}</style></head>
<body><main id="result" data-code="${escapeHtml(page.code)}">
<h1>${escapeHtml(page.heading)}</h1>
<p id="message">${escapeHtml(page.message)}</p>
${rows ? `<dl>${rows}</dl>` : ""}${page.extraHtml ?? ""}
<p class="code">Code: <span id="code">${escapeHtml(page.code)}</span> · Request id: ${escapeHtml(requestId)}</p>
</main>${script}</body></html>`;
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action ${page.postsForm ? "'self'" : "'none'"}`,
    },
  });
}

/** JSON for an inline script: `<`, U+2028 and U+2029 escaped so it cannot close the tag or break the line. */
function safeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
