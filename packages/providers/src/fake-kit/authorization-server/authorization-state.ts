import { randomId } from "../random-id.ts";
import type { AuthorizationServerBehaviour } from "./behaviour.ts";

/** A token request as the server saw it: how the client authenticated, and the parameters (secrets left out). */
export interface SeenTokenRequest {
  grantType: string;
  clientAuthenticatedBy: "post" | "basic" | "none";
  params: Record<string, string>;
  /** The refresh token presented ("" when none): which token the client held. */
  refreshToken: string;
  path: string;
}

interface Grant {
  scope: string;
}

/** Everything the fake authorization server remembers: codes, tokens, and what it was asked. */
export interface AuthorizationState {
  now: () => number;
  behaviour: AuthorizationServerBehaviour;
  codes: Map<string, Grant & { redirectUri: string; challenge: string; method: string }>;
  access: Map<string, Grant & { expiresAt: number | null }>;
  refresh: Map<string, Grant & { state: "live" | "grace" }>;
  /** A retired token in grace → the token that replaced it (its first use ends the grace). */
  successors: Map<string, string>;
  authorizations: { path: string; params: Record<string, string> }[];
  tokenRequests: SeenTokenRequest[];
  issuedAccessTokens: string[];
}

/** An empty state following `now`, with `behaviour` as its (mutable) behaviour. */
export function newAuthorizationState(now: () => number, behaviour: AuthorizationServerBehaviour): AuthorizationState {
  return {
    now,
    behaviour,
    codes: new Map(),
    access: new Map(),
    refresh: new Map(),
    successors: new Map(),
    authorizations: [],
    tokenRequests: [],
    issuedAccessTokens: [],
  };
}

/** An OAuth error answer, as HTML when the behaviour says the provider answers errors so. */
export function oauthError(
  behaviour: AuthorizationServerBehaviour,
  status: number,
  error: string,
  description: string,
): Response {
  return behaviour.htmlErrors
    ? new Response(`<!DOCTYPE html><html><body><h1>Error ${status}</h1><p>${error}</p></body></html>`, {
        status,
        headers: { "content-type": "text/html; charset=utf-8" },
      })
    : Response.json({ error, error_description: description }, { status });
}

/** A new live refresh token for `scope`. */
export function newRefreshToken(state: AuthorizationState, scope: string): string {
  const token = `fake-rt-${randomId()}`;
  state.refresh.set(token, { scope, state: "live" });
  return token;
}

/** Issues an access token (and hands out `refreshToken` when given), shaped as the behaviour says. */
export function issueTokens(state: AuthorizationState, scope: string, refreshToken: string | null): Response {
  const { behaviour } = state;
  const accessToken = `fake-at-${randomId()}`;
  state.issuedAccessTokens.push(accessToken);
  state.access.set(accessToken, {
    scope,
    expiresAt: behaviour.expiresIn === null ? null : state.now() + behaviour.expiresIn * 1000,
  });
  const tokens: Record<string, unknown> = {
    access_token: accessToken,
    ...(behaviour.tokenType !== null ? { token_type: behaviour.tokenType } : {}),
    ...(behaviour.expiresIn !== null ? { expires_in: behaviour.expiresIn } : {}),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope,
  };
  const broken = behaviour.breakNextAnswer;
  behaviour.breakNextAnswer = null;
  if (broken === "no_access_token") delete tokens.access_token;
  if (broken === "wrong_token_type") tokens.token_type = "mac";
  if (broken === "html_200") {
    return new Response("<html><body>Signed in!</body></html>", { headers: { "content-type": "text/html" } });
  }
  if (behaviour.nestUnder === "") return encodeAnswer(behaviour, { ...behaviour.extraAnswerFields, ...tokens });
  // Nested: the top level holds another token (a bot's), as Slack's oauth.v2.access does.
  return encodeAnswer(behaviour, {
    ok: true,
    access_token: `fake-bot-${randomId()}`,
    token_type: "bot",
    ...behaviour.extraAnswerFields,
    [behaviour.nestUnder]: tokens,
  });
}

function encodeAnswer(behaviour: AuthorizationServerBehaviour, body: Record<string, unknown>): Response {
  if (behaviour.answerFormat === "json") return Response.json(body);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) form.set(k, String(v));
  return new Response(form.toString(), { headers: { "content-type": "application/x-www-form-urlencoded" } });
}
