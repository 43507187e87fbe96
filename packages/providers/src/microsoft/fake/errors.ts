import { randomUUID } from "node:crypto";

/**
 * The identity platform's error body: `{error, error_description: "AADSTS<n>: ...", error_codes,
 * timestamp, trace_id, correlation_id}`
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow#error-response-1,
 * codes: https://learn.microsoft.com/en-us/entra/identity-platform/reference-error-codes).
 */
export function aadError(status: number, error: string, aadsts: number, description: string, now: number): Response {
  return Response.json(
    {
      error,
      error_description: `AADSTS${aadsts}: ${description}`,
      error_codes: [aadsts],
      timestamp: new Date(now)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z"),
      trace_id: randomUUID(),
      correlation_id: randomUUID(),
    },
    { status },
  );
}

/** Microsoft Graph's error body `{error: {code, message, innerError}}` (https://learn.microsoft.com/en-us/graph/errors). */
export function graphError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message, innerError: { "request-id": randomUUID() } } }, { status });
}

/** The sign-in page's error, shown to the user and never redirected (the redirect URI is not trusted yet). */
export function signInErrorPage(status: number, aadsts: number, description: string): Response {
  const text = `AADSTS${aadsts}: ${description}`.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><head><title>Sign in to your account</title></head>
<body><h1>Sorry, but we're having trouble signing you in.</h1><p id="error">${text}</p></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}
