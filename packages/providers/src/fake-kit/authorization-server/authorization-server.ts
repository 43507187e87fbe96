import { answerApi } from "./answer-api.ts";
import { answerAuthorize } from "./answer-authorize.ts";
import { answerToken } from "./answer-token.ts";
import { newAuthorizationState, type SeenTokenRequest } from "./authorization-state.ts";
import { type AuthorizationServerBehaviour, DEFAULT_BEHAVIOUR } from "./behaviour.ts";

export type { SeenTokenRequest } from "./authorization-state.ts";

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
  const state = newAuthorizationState(options.now ?? Date.now, { ...DEFAULT_BEHAVIOUR, ...options.behaviour });
  const { behaviour, access, refresh, successors, now } = state;
  return {
    behaviour,
    behave: (change) => Object.assign(behaviour, change),
    async handle(req, url) {
      if (req.method === "GET" && url.pathname.endsWith("/authorize")) return answerAuthorize(state, url);
      const refreshPath = behaviour.refreshPath;
      if (
        req.method === "POST" &&
        (url.pathname.endsWith("/token") || (refreshPath && url.pathname.endsWith(refreshPath)))
      )
        return answerToken(state, req, url.pathname);
      if (url.pathname.includes("/api/")) return answerApi(state, req, url);
      return new Response("not found", { status: 404 });
    },
    authorizations: state.authorizations,
    tokenRequests: state.tokenRequests,
    liveRefreshTokens: () => [...refresh.keys()],
    issuedAccessTokens: state.issuedAccessTokens,
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
