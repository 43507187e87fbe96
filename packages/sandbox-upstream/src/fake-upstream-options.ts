import type { ClientRegistration } from "./oauth-store.ts";

/** How channel notifications name their headers. */
export type NotificationHeaderStyle = "goog" | "provider";

/** Options for `startFakeUpstream`; every field has a test-friendly default. */
export interface FakeUpstreamOptions {
  /** Port to listen on, on 127.0.0.1. Default 0 (a free port). */
  port?: number;
  /** Injected clock in Unix ms, used for token, code and channel expiry. Default `Date.now`. */
  now?: () => number;
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
  /** Accept http:// channel addresses on loopback hosts. Default true. */
  allowInsecureAddresses?: boolean;
  /** Header names on notifications: Google's `X-Goog-*` or the spec's `x-provider-*`. Default "goog". */
  notificationHeaderStyle?: NotificationHeaderStyle;
  /** Per-delivery timeout for notifications (real ms). Default 5000. */
  notificationTimeoutMs?: number;
  /** Base of the channel `resourceUri`. Default `https://www.googleapis.com`. */
  resourceUriBase?: string;
  /** Channel lifetime when `expiration` is omitted. Default 7 days (Google's documented default). */
  defaultChannelTtlMs?: number;
  /** Longer expirations are clamped to now + this. Default 30 days. */
  maxChannelTtlMs?: number;
  /** Project number named in channel-not-found errors. Default "123456789012". */
  projectNumber?: string;
  /** Require a valid Bearer token on /echo, /blob, /flaky, /status and /slow. Default false. */
  requireAuthOnEcho?: boolean;
}

export type ResolvedOptions = Required<Omit<FakeUpstreamOptions, "refreshTokenTtlSeconds" | "clients">> & {
  refreshTokenTtlSeconds: number | undefined;
  clients: ClientRegistration[];
};

const DAY_MS = 24 * 60 * 60 * 1000;

export function resolveOptions(options: FakeUpstreamOptions = {}): ResolvedOptions {
  return {
    port: options.port ?? 0,
    now: options.now ?? (() => Date.now()),
    interactive: options.interactive ?? false,
    defaultUser: options.defaultUser ?? "alice@example.com",
    clients: options.clients ?? [],
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
    tokenDelayMs: options.tokenDelayMs ?? 0,
    enforceScopes: options.enforceScopes ?? false,
    allowInsecureAddresses: options.allowInsecureAddresses ?? true,
    notificationHeaderStyle: options.notificationHeaderStyle ?? "goog",
    notificationTimeoutMs: options.notificationTimeoutMs ?? 5000,
    resourceUriBase: (options.resourceUriBase ?? "https://www.googleapis.com").replace(/\/+$/, ""),
    defaultChannelTtlMs: options.defaultChannelTtlMs ?? 7 * DAY_MS,
    maxChannelTtlMs: options.maxChannelTtlMs ?? 30 * DAY_MS,
    projectNumber: options.projectNumber ?? "123456789012",
    requireAuthOnEcho: options.requireAuthOnEcho ?? false,
  };
}
