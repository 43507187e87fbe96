import type { ClientRegistration } from "./oauth-store.ts";

/** Options of the Google accounts fake (OAuth, identity, proxy test helpers), each with a test-friendly default. */
export interface GoogleFakeOptions {
  /** Render a consent page with Allow/Deny instead of auto-approving. Default false. */
  interactive?: boolean;
  /** Who consents when the request has no `login_hint`. Default `alice@example.com`. */
  defaultUser?: string;
  /** OAuth clients registered at start (more with `registerClient`). */
  clients?: ClientRegistration[];
  /** Access token lifetime, as `expires_in`. Default 3599. */
  accessTokenTtlSeconds?: number;
  /** Refresh token lifetime; unset means they never expire (Google production behaviour). */
  refreshTokenTtlSeconds?: number;
  /** Issue a new refresh token on every refresh and revoke the old one. Default false (Google keeps it). */
  rotateRefreshTokens?: boolean;
  /** Delay (real ms) before the token endpoint answers, so concurrent refreshes pile up. Default 0. */
  tokenDelayMs?: number;
  /** Answer 403 insufficientPermissions when the token lacks a calendar/gmail scope. Default false. */
  enforceScopes?: boolean;
  /** Require a valid Bearer token on /echo, /blob, /flaky, /status and /slow. Default false. */
  requireAuthOnEcho?: boolean;
}

export type GoogleFakeResolvedOptions = Required<Omit<GoogleFakeOptions, "refreshTokenTtlSeconds">> & {
  refreshTokenTtlSeconds: number | undefined;
};

export function resolveGoogleOptions(options: GoogleFakeOptions): GoogleFakeResolvedOptions {
  return {
    interactive: options.interactive ?? false,
    defaultUser: options.defaultUser ?? "alice@example.com",
    clients: options.clients ?? [],
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
    tokenDelayMs: options.tokenDelayMs ?? 0,
    enforceScopes: options.enforceScopes ?? false,
    requireAuthOnEcho: options.requireAuthOnEcho ?? false,
  };
}
