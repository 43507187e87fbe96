import type { AuthorizationState } from "./authorization-state.ts";

/** `GET …/api/me` answers the account for a live access token; any other `…/api/…` echoes what it carried. */
export function answerApi(state: AuthorizationState, req: Request, url: URL): Response {
  const auth = req.headers.get("authorization") ?? "";
  if (url.pathname.endsWith("/api/me")) {
    const grant = state.access.get(auth.replace(/^Bearer /, ""));
    if (!grant || (grant.expiresAt !== null && grant.expiresAt <= state.now()))
      return Response.json({ error: "invalid_token" }, { status: 401 });
    return Response.json({ account: { id: "acct-42", email: "user@example.com" } });
  }
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return Response.json({
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
  });
}
