import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { mountRoutes, type MountedRoute, type RequestContext, route } from "../../fake-kit/router.ts";
import { type AuthorizationOverride, approveRoute, authorizeRoute } from "./authorize-routes.ts";
import { blobRoute, blobSinkRoute, echoRoute, flakyRoute, slowRoute, statusRoute } from "./diagnostic-routes.ts";
import { notFound } from "./google-errors.ts";
import { IdTokenSigner } from "./id-token-signer.ts";
import {
  type AccessTokenRecord,
  type ClientRegistration,
  type FakeUser,
  type NewUser,
  OAuthStore,
  type SavedOAuthStore,
  type RefreshTokenRecord,
} from "./oauth-store.ts";
import { certsRoute, revokeRoute, userinfoRoute } from "./openid-routes.ts";
import { type GoogleFakeOptions, resolveGoogleOptions } from "./options.ts";
import type { GoogleFakeState } from "./state.ts";
import {
  TokenEndpointControl,
  type TokenEndpointBehavior,
  type TokenRequestCounts,
  type TokenRequestLogEntry,
} from "./token-endpoint-control.ts";
import { tokenRoute } from "./token-route.ts";

export type { AccessTokenRecord, AuthorizationOverride, ClientRegistration, FakeUser, NewUser, RefreshTokenRecord };
export type { GoogleFakeOptions, GoogleFakeState, TokenEndpointBehavior, TokenRequestCounts, TokenRequestLogEntry };
export { authenticate, authorize } from "./bearer-auth.ts";
export { googleApiError, invalidArgument, notFound } from "./google-errors.ts";

export interface IssueTokensInput {
  email?: string;
  clientId?: string;
  scopes?: string[];
  /** Also mint a refresh token. Default true. */
  offline?: boolean;
  ttlSeconds?: number;
}

export interface GoogleFakeControls {
  registerClient(client: ClientRegistration): ClientRegistration;
  addUser(user: NewUser): FakeUser;
  /** Overrides the next consent decision only. */
  setNextAuthorization(override: AuthorizationOverride): void;
  /** Plays the browser: GETs an authorization URL and returns the 302 Location (the callback URL). */
  authorize(authorizationUrl: string): Promise<URL>;
  /** Mints tokens without the consent dance, for tests that call the upstream directly. */
  issueTokens(input: IssueTokensInput): { accessToken: string; refreshToken?: string; expiresIn: number };
  revokeRefreshToken(token: string): boolean;
  /** Revokes every token of the user and forgets their consent. Returns the number revoked. */
  revokeAllFor(email: string): number;
  /** Expires live access tokens (all, or one user's) without moving the clock. */
  expireAccessTokens(email?: string): number;
  /** Applies to the next `times` token requests (default: until changed). */
  setTokenEndpointBehavior(behavior: TokenEndpointBehavior, options?: { times?: number }): void;
  setTokenDelay(ms: number): void;
}

export interface GoogleFakeStateView {
  readonly users: ReadonlyMap<string, FakeUser>;
  readonly clients: ReadonlyMap<string, ClientRegistration>;
  readonly accessTokens: ReadonlyMap<string, AccessTokenRecord>;
  readonly refreshTokens: ReadonlyMap<string, RefreshTokenRecord>;
  /** Token requests received, by grant type, counted on arrival (before any failure behaviour). */
  readonly tokenRequests: Readonly<TokenRequestCounts>;
  readonly tokenRequestLog: readonly TokenRequestLogEntry[];
  /** Token requests being handled right now, and the most ever at once. */
  readonly tokenConcurrency: { readonly inFlight: number; readonly peak: number };
}

export interface GoogleFakeEndpoints extends Record<string, string> {
  authorizationUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  userinfoUrl: string;
  jwksUrl: string;
}

export interface GoogleFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  controls: GoogleFakeControls;
  state: GoogleFakeStateView;
  endpoints: GoogleFakeEndpoints;
  /** What the calendar and mail fakes build on (`host.use(fake)`). */
  google: GoogleFakeState;
  /** A sandbox credential of a Google API at `baseUrl`, signing in here. */
  sandboxCredential(baseUrl: string): SandboxCredentialUrls;
  notFound(ctx: RequestContext): Response;
}

/** Paths mirror Google's hosts, so Junction's templates only need their base URLs pointed here. */
const ROUTES = [
  // accounts.google.com and oauth2.googleapis.com
  route("GET", /^\/o\/oauth2\/v2\/auth$/, authorizeRoute),
  route("POST", /^\/o\/oauth2\/v2\/auth\/approve$/, approveRoute),
  route("POST", /^\/token$/, tokenRoute),
  route("POST", /^\/revoke$/, revokeRoute),
  route("GET", /^\/oauth2\/v[123]\/userinfo$/, userinfoRoute),
  route("GET", /^\/oauth2\/v3\/certs$/, certsRoute),
  // Test helpers for the proxy
  route("*", /^\/echo(?:\/.*)?$/, echoRoute),
  route("GET", /^\/blob\/(\d+)$/, blobRoute),
  route("POST", /^\/blob\/sink$/, blobSinkRoute),
  route("PUT", /^\/blob\/sink$/, blobSinkRoute),
  route("*", /^\/flaky\/(\d+)$/, flakyRoute),
  route("*", /^\/status\/(\d{3})$/, statusRoute),
  route("*", /^\/slow\/(\d+)$/, slowRoute),
];

/** Google's accounts (OAuth 2.0, OpenID userinfo and keys) and the proxy test helpers, with Google's error shapes. */
export const fake: ProviderFake<GoogleFakeOptions, GoogleFakeInstance> = {
  name: "google",
  start(host: FakeHost, options: GoogleFakeOptions): GoogleFakeInstance {
    const resolved = resolveGoogleOptions(options);
    const oauth = new OAuthStore(host.now);
    oauth.addUser({ email: resolved.defaultUser });
    for (const client of resolved.clients) oauth.registerClient(client);
    const google: GoogleFakeState = {
      options: resolved,
      now: host.now,
      changes: host.changes,
      oauth,
      idTokens: new IdTokenSigner(host.now),
      tokenEndpoint: new TokenEndpointControl(resolved.tokenDelayMs),
      nextAuthorization: undefined,
      flakyAttempts: new Map(),
    };
    const url = host.url;
    const authorizationUrl = `${url}/o/oauth2/v2/auth`;
    const tokenUrl = `${url}/token`;
    return {
      google,
      sandboxCredential: (baseUrl) => ({ authorizationUrl, tokenUrl, baseUrl }),
      routes: mountRoutes(google, ROUTES),
      notFound: (ctx) => notFound(`Not Found: ${ctx.method} ${ctx.rawPath}`),
      endpoints: {
        authorizationUrl,
        tokenUrl,
        revokeUrl: `${url}/revoke`,
        userinfoUrl: `${url}/oauth2/v3/userinfo`,
        jwksUrl: `${url}/oauth2/v3/certs`,
      },
      state: {
        users: oauth.users,
        clients: oauth.clients,
        accessTokens: oauth.accessTokens,
        refreshTokens: oauth.refreshTokens,
        tokenRequests: google.tokenEndpoint.counts,
        tokenRequestLog: google.tokenEndpoint.log,
        tokenConcurrency: google.tokenEndpoint.concurrency,
      },
      controls: controls(google),
      persistence: { save: () => oauth.save(), restore: (saved) => oauth.restore(saved as SavedOAuthStore) },
    };
  },
};

function controls(google: GoogleFakeState): GoogleFakeControls {
  const { oauth, options } = google;
  return {
    registerClient: (client) => oauth.registerClient(client),
    addUser: (user) => oauth.addUser(user),
    setNextAuthorization(override) {
      google.nextAuthorization = override;
    },
    async authorize(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: "manual" });
      const location = response.headers.get("location");
      if (response.status !== 302 || !location) {
        throw new Error(`fake-upstream: consent did not redirect (${response.status}): ${await response.text()}`);
      }
      return new URL(location);
    },
    issueTokens(input) {
      const email = (input.email ?? options.defaultUser).toLowerCase();
      oauth.ensureUser(email);
      const clientId = input.clientId ?? options.clients[0]?.clientId ?? "fake-upstream-direct";
      const scopes = input.scopes ?? [];
      const ttl = input.ttlSeconds ?? options.accessTokenTtlSeconds;
      const access = oauth.issueAccessToken(email, clientId, scopes, ttl);
      const refresh = input.offline === false ? undefined : oauth.issueRefreshToken(email, clientId, scopes);
      return { accessToken: access.token, expiresIn: ttl, ...(refresh ? { refreshToken: refresh.token } : {}) };
    },
    revokeRefreshToken: (token) => oauth.revokeRefreshToken(token),
    revokeAllFor: (email) => oauth.revokeAllFor(email),
    expireAccessTokens: (email) => oauth.expireAccessTokens(email),
    setTokenEndpointBehavior(behavior, opts) {
      google.tokenEndpoint.set(behavior, opts?.times);
    },
    setTokenDelay(ms) {
      google.tokenEndpoint.delayMs = ms;
    },
  };
}
