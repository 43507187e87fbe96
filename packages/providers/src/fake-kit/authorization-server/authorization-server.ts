import { randomId } from "../random-id.ts";
import { pkceMatches } from "../pkce.ts";
import { type AuthorizationServerBehaviour, DEFAULT_BEHAVIOUR } from "./behaviour.ts";

/** A token request as the server saw it: how the client authenticated, and the parameters (secrets left out). */
export interface SeenTokenRequest {
  grantType: string;
  clientAuthenticatedBy: "post" | "basic" | "none";
  params: Record<string, string>;
  /** The refresh token presented ("" when none): which token the client held. */
  refreshToken: string;
  path: string;
}

export interface FakeAuthorizationServer {
  /** Origin, e.g. http://127.0.0.1:41234. Any path ending in /authorize, /token (or the refresh path), /api/... is served. */
  url: string;
  behaviour: AuthorizationServerBehaviour;
  /** Changes the behaviour from now on. */
  behave(change: Partial<AuthorizationServerBehaviour>): void;
  /** Plays the browser: opens an authorization URL, consents, and returns the callback URL it redirects to. */
  authorize(authorizationUrl: string): Promise<URL>;
  /** The authorization requests' paths and parameters, in order. */
  authorizations: { path: string; params: Record<string, string> }[];
  tokenRequests: SeenTokenRequest[];
  /** Refresh tokens that still work. */
  liveRefreshTokens(): string[];
  /** Access tokens issued, in order. */
  issuedAccessTokens: string[];
  /** Makes a refresh token stop working (the user revoked access). */
  revoke(refreshToken: string): void;
  stop(): Promise<void>;
}

interface Grant {
  scope: string;
}

const SECRET_PARAMS = new Set(["client_secret", "code", "refresh_token", "code_verifier"]);

/** The server without its listener: for a fake that mounts it under a path of another server (the sandbox's). */
export type AuthorizationHandler = Omit<FakeAuthorizationServer, "url" | "authorize" | "stop"> & {
  /** Answers one request: `…/authorize`, `…/token`, `…/api/…`; 404 otherwise. */
  handle(req: Request, url: URL): Promise<Response>;
  /** The tokens it issued as JSON, and putting them back (the sandbox keeps them across restarts). */
  persistence: { save(): SavedAuthorizations; restore(saved: SavedAuthorizations): void };
};

/** What an authorization handler keeps across restarts: its live tokens. */
export interface SavedAuthorizations {
  access?: [string, { scope: string; expiresAt: number | null }][];
  refresh?: [string, { scope: string; state: "live" | "grace" }][];
  successors?: [string, string][];
}

/**
 * A configurable OAuth 2.0 authorization server (RFC 6749, RFC 7636) for tests: consent is automatic;
 * each behaviour of `AuthorizationServerBehaviour` is what a provider definition's variation expects.
 * Expiry follows `now` (the test's clock). Also serves `GET …/api/me` (the account, with a live access
 * token) and echoes any other `…/api/…` request (what credentials it carried).
 */
export function startFakeAuthorizationServer(
  options: { now?: () => number; behaviour?: Partial<AuthorizationServerBehaviour> } = {},
): FakeAuthorizationServer {
  const handler = fakeAuthorizationHandler(options);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => handler.handle(req, new URL(req.url)),
  });
  const { handle: _handle, persistence: _persistence, ...parts } = handler;
  return {
    ...parts,
    url: `http://127.0.0.1:${server.port}`,
    async authorize(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: "manual" });
      const location = res.headers.get("location");
      if (res.status !== 302 || !location) throw new Error(`authorize: HTTP ${res.status} ${await res.text()}`);
      return new URL(location);
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}

/** The authorization server's state and request handling, listening nowhere. */
export function fakeAuthorizationHandler(
  options: { now?: () => number; behaviour?: Partial<AuthorizationServerBehaviour> } = {},
): AuthorizationHandler {
  const now = options.now ?? Date.now;
  const behaviour: AuthorizationServerBehaviour = { ...DEFAULT_BEHAVIOUR, ...options.behaviour };
  const codes = new Map<string, Grant & { redirectUri: string; challenge: string; method: string }>();
  const access = new Map<string, Grant & { expiresAt: number | null }>();
  const refresh = new Map<string, Grant & { state: "live" | "grace" }>();
  /** A retired token in grace → the token that replaced it (its first use ends the grace). */
  const successors = new Map<string, string>();
  const authorizations: FakeAuthorizationServer["authorizations"] = [];
  const tokenRequests: SeenTokenRequest[] = [];
  const issuedAccessTokens: string[] = [];

  const oauthError = (status: number, error: string, description: string): Response =>
    behaviour.htmlErrors
      ? new Response(`<!DOCTYPE html><html><body><h1>Error ${status}</h1><p>${error}</p></body></html>`, {
          status,
          headers: { "content-type": "text/html; charset=utf-8" },
        })
      : Response.json({ error, error_description: description }, { status });

  const answer = (body: Record<string, unknown>): Response => {
    if (behaviour.answerFormat === "json") return Response.json(body);
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) form.set(k, String(v));
    return new Response(form.toString(), { headers: { "content-type": "application/x-www-form-urlencoded" } });
  };

  const issue = (scope: string, refreshToken: string | null): Response => {
    const accessToken = `fake-at-${randomId()}`;
    issuedAccessTokens.push(accessToken);
    access.set(accessToken, {
      scope,
      expiresAt: behaviour.expiresIn === null ? null : now() + behaviour.expiresIn * 1000,
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
    if (behaviour.nestUnder === "") return answer({ ...behaviour.extraAnswerFields, ...tokens });
    // Nested: the top level holds another token (a bot's), as Slack's oauth.v2.access does.
    return answer({
      ok: true,
      access_token: `fake-bot-${randomId()}`,
      token_type: "bot",
      ...behaviour.extraAnswerFields,
      [behaviour.nestUnder]: tokens,
    });
  };

  const newRefreshToken = (scope: string): string => {
    const token = `fake-rt-${randomId()}`;
    refresh.set(token, { scope, state: "live" });
    return token;
  };

  const authorize = (url: URL): Response => {
    const p = Object.fromEntries(url.searchParams);
    authorizations.push({ path: url.pathname, params: p });
    const redirect = p.redirect_uri;
    if (!redirect || p.client_id !== behaviour.clientId) return oauthError(400, "invalid_client", "unknown client_id");
    const back = (params: Record<string, string>) => {
      const to = new URL(redirect);
      for (const [k, v] of Object.entries({ ...params, ...(p.state ? { state: p.state } : {}) }))
        to.searchParams.set(k, v);
      return new Response(null, { status: 302, headers: { location: to.toString() } });
    };
    const refuse = (error: string, description: string) => back({ error, error_description: description });
    if (p.response_type !== "code") return refuse("unsupported_response_type", "response_type must be code");
    for (const [k, v] of Object.entries(behaviour.requiredAuthorizationParams)) {
      if (p[k] !== v) return refuse("invalid_request", `${k} must be ${v}`);
    }
    const scope = p.scope ?? "";
    const others = [" ", ",", "+"].filter((s) => s !== behaviour.scopeSeparator);
    if (others.some((s) => scope.includes(s)))
      return refuse("invalid_scope", `scopes must be separated by "${behaviour.scopeSeparator}"`);
    const challenge = p.code_challenge ?? "";
    if (behaviour.pkce === "required" && (challenge === "" || p.code_challenge_method !== "S256")) {
      return refuse("invalid_request", "code_challenge (S256) is required");
    }
    if (behaviour.pkce === "refused" && challenge !== "") return refuse("invalid_request", "PKCE is not supported");
    const code = `fake-code-${randomId()}`;
    codes.set(code, { scope, redirectUri: redirect, challenge, method: p.code_challenge_method ?? "plain" });
    return back({ ...behaviour.callbackParams, code });
  };

  const token = async (req: Request, path: string): Promise<Response> => {
    const params = Object.fromEntries(new URLSearchParams(await req.text()));
    const basic = req.headers.get("authorization");
    let by: SeenTokenRequest["clientAuthenticatedBy"] = "none";
    let id = "";
    let secret = "";
    if (basic?.startsWith("Basic ")) {
      const [u = "", pw = ""] = Buffer.from(basic.slice(6), "base64").toString("utf8").split(":");
      by = "basic";
      id = decodeURIComponent(u.replace(/\+/g, " "));
      secret = decodeURIComponent(pw.replace(/\+/g, " "));
    } else if (params.client_secret !== undefined) {
      by = "post";
      id = params.client_id ?? "";
      secret = params.client_secret;
    }
    const grantType = params.grant_type ?? "";
    const seen = Object.fromEntries(Object.entries(params).filter(([k]) => !SECRET_PARAMS.has(k)));
    tokenRequests.push({
      grantType,
      clientAuthenticatedBy: by,
      params: seen,
      refreshToken: params.refresh_token ?? "",
      path,
    });
    const wanted = behaviour.clientAuthentication === "client_secret_basic" ? "basic" : "post";
    if (by !== wanted || id !== behaviour.clientId || secret !== behaviour.clientSecret) {
      return oauthError(
        401,
        "invalid_client",
        `client authentication failed (expected ${behaviour.clientAuthentication})`,
      );
    }
    const atRefreshPath = behaviour.refreshPath !== null && path.endsWith(behaviour.refreshPath);
    if (behaviour.refreshPath !== null && (grantType === "refresh_token") !== atRefreshPath) {
      const where = atRefreshPath
        ? "only refresh tokens are spent here"
        : `refresh tokens are spent at ${behaviour.refreshPath}`;
      return oauthError(400, "unsupported_grant_type", where);
    }
    for (const [k, v] of Object.entries(behaviour.requiredTokenParams)) {
      if (params[k] !== v) return oauthError(400, "invalid_request", `${k} must be ${v}`);
    }
    if (grantType === "authorization_code") {
      const grant = codes.get(params.code ?? "");
      codes.delete(params.code ?? "");
      if (!grant || grant.redirectUri !== params.redirect_uri) return oauthError(400, "invalid_grant", "bad code");
      if (grant.challenge !== "" && !pkceMatches(params.code_verifier ?? "", grant.challenge, grant.method)) {
        return oauthError(400, "invalid_grant", "code_verifier does not match");
      }
      if (grant.challenge === "" && params.code_verifier !== undefined && behaviour.pkce === "refused") {
        return oauthError(400, "invalid_request", "PKCE is not supported");
      }
      return issue(grant.scope, newRefreshToken(grant.scope));
    }
    if (grantType === "refresh_token") {
      const used = params.refresh_token ?? "";
      const grant = refresh.get(used);
      if (!grant) return oauthError(400, "invalid_grant", "refresh token revoked, expired or retired");
      if (behaviour.refreshNeedsScope && !params.scope) return oauthError(400, "invalid_scope", "scope is required");
      // The first use of a successor ends its predecessor's grace.
      for (const [old, next] of successors)
        if (next === used) {
          refresh.delete(old);
          successors.delete(old);
        }
      if (!behaviour.rotateRefreshTokens) return issue(grant.scope, null);
      const next = newRefreshToken(grant.scope);
      if (behaviour.retiredRefreshTokenGrace) {
        refresh.set(used, { ...grant, state: "grace" });
        successors.set(used, next);
      } else refresh.delete(used);
      const lost = behaviour.loseNextRefreshAnswer;
      behaviour.loseNextRefreshAnswer = null;
      if (lost === "html_502")
        return new Response("<html><body>Bad gateway</body></html>", {
          status: 502,
          headers: { "content-type": "text/html" },
        });
      if (lost === "json_500") return Response.json({ error: "server_error" }, { status: 500 });
      return issue(grant.scope, next);
    }
    if (grantType === "client_credentials") return issue(params.scope ?? "", null);
    return oauthError(400, "unsupported_grant_type", grantType);
  };

  const api = (req: Request, url: URL): Response => {
    const auth = req.headers.get("authorization") ?? "";
    if (url.pathname.endsWith("/api/me")) {
      const grant = access.get(auth.replace(/^Bearer /, ""));
      if (!grant || (grant.expiresAt !== null && grant.expiresAt <= now()))
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
  };

  return {
    behaviour,
    behave: (change) => Object.assign(behaviour, change),
    async handle(req, url) {
      if (req.method === "GET" && url.pathname.endsWith("/authorize")) return authorize(url);
      const refreshPath = behaviour.refreshPath;
      if (
        req.method === "POST" &&
        (url.pathname.endsWith("/token") || (refreshPath && url.pathname.endsWith(refreshPath)))
      )
        return token(req, url.pathname);
      if (url.pathname.includes("/api/")) return api(req, url);
      return new Response("not found", { status: 404 });
    },
    authorizations,
    tokenRequests,
    liveRefreshTokens: () => [...refresh.keys()],
    issuedAccessTokens,
    revoke: (rt) => void refresh.delete(rt),
    persistence: {
      save: () => ({
        access: [...access].filter(([, g]) => g.expiresAt === null || g.expiresAt > now()),
        refresh: [...refresh],
        successors: [...successors],
      }),
      restore(saved) {
        for (const [token, grant] of saved.access ?? []) access.set(token, grant);
        for (const [token, grant] of saved.refresh ?? []) refresh.set(token, grant);
        for (const [old, next] of saved.successors ?? []) successors.set(old, next);
      },
    },
  };
}
