import type { AuthorizationOverride } from "./authorize-routes.ts";
import type { CalendarEvent } from "./calendar-store.ts";
import type { ChannelView } from "./channel-registry.ts";
import { type FakeUpstreamOptions, resolveOptions } from "./fake-upstream-options.ts";
import type { NotificationAttempt } from "./notification-sender.ts";
import type { AccessTokenRecord, ClientRegistration, FakeUser, NewUser, RefreshTokenRecord } from "./oauth-store.ts";
import { dispatch } from "./router.ts";
import { ROUTES } from "./routes.ts";
import { startRawHttpServer } from "./start-raw-http-server.ts";
import type { TokenEndpointBehavior, TokenRequestCounts, TokenRequestLogEntry } from "./token-endpoint-control.ts";
import {
  createUpstream,
  notifyCalendarChanged,
  type RequestLogEntry,
  type SentMessage,
  type Upstream,
} from "./upstream.ts";

export { blobChunks, blobSha256 } from "./blob-pattern.ts";
export { pkceChallenge } from "./pkce.ts";
export { type RawHttpResponse, rawHttpRequest } from "./raw-http-request.ts";
export { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";
export type {
  AccessTokenRecord,
  AuthorizationOverride,
  CalendarEvent,
  ChannelView,
  ClientRegistration,
  FakeUpstreamOptions,
  FakeUser,
  NewUser,
  NotificationAttempt,
  RefreshTokenRecord,
  RequestLogEntry,
  SentMessage,
  TokenEndpointBehavior,
  TokenRequestCounts,
  TokenRequestLogEntry,
};

/** Live, read-only views of the fake's state for assertions. */
export interface FakeUpstreamState {
  readonly users: ReadonlyMap<string, FakeUser>;
  readonly clients: ReadonlyMap<string, ClientRegistration>;
  readonly accessTokens: ReadonlyMap<string, AccessTokenRecord>;
  readonly refreshTokens: ReadonlyMap<string, RefreshTokenRecord>;
  /** Token requests received, by grant type, counted on arrival (before any failure behaviour). */
  readonly tokenRequests: Readonly<TokenRequestCounts>;
  readonly tokenRequestLog: readonly TokenRequestLogEntry[];
  /** Token requests being handled right now, and the most ever at once. */
  readonly tokenConcurrency: { readonly inFlight: number; readonly peak: number };
  /** Every channel ever created, with `state` worked out against the clock now. */
  readonly channels: ChannelView[];
  /** Finished notification deliveries, in completion order. */
  readonly notificationsSent: readonly NotificationAttempt[];
  readonly requests: readonly RequestLogEntry[];
  /** Requests per raw path (query excluded). */
  readonly requestCounts: ReadonlyMap<string, number>;
  readonly sentMessages: readonly SentMessage[];
}

export interface FakeUpstream {
  /** e.g. `http://127.0.0.1:41234`; every Google host maps to this one origin. */
  url: string;
  port: number;
  /** Ready-made URLs for a provider template. */
  endpoints: {
    authorizationUrl: string;
    tokenUrl: string;
    revokeUrl: string;
    userinfoUrl: string;
    jwksUrl: string;
    /** Replaces `https://www.googleapis.com`. */
    calendarBaseUrl: string;
    /** Replaces `https://gmail.googleapis.com`. */
    mailBaseUrl: string;
  };
  state: FakeUpstreamState;
  /** Stops the server, ends hanging requests and drops queued notifications. */
  stop(): Promise<void>;

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

  /** Sends "exists" to every live channel on the calendar (a decoded id, e.g. the email). Returns how many. */
  changeCalendar(calendarId: string): number;
  /** Stores an event as if the user made it elsewhere, and notifies watchers. */
  createEvent(calendarId: string, fields?: Record<string, unknown>): CalendarEvent;
  invalidateSyncTokens(calendarId: string): void;
  /** Sends one notification on the latest channel with this id, whatever its state. Returns its message number. */
  sendNotification(channelId: string, resourceState: string): number;
  /** Resolves with all finished deliveries once at least `n` (matching `filter`) have finished. */
  awaitNotifications(
    n: number,
    timeoutMs?: number,
    filter?: (attempt: NotificationAttempt) => boolean,
  ): Promise<NotificationAttempt[]>;
  /** Resolves when no notification is queued or in flight, for "nothing more was sent" assertions. */
  settleNotifications(): Promise<void>;
  /** Waits until `condition(state)` holds, re-checked on every state change. */
  waitFor(condition: (state: FakeUpstreamState) => boolean, timeoutMs?: number, description?: string): Promise<void>;
  /** Requests received on this exact raw path (query excluded). */
  requestCount(path: string): number;
}

export interface IssueTokensInput {
  email?: string;
  clientId?: string;
  scopes?: string[];
  /** Also mint a refresh token. Default true. */
  offline?: boolean;
  ttlSeconds?: number;
}

const DEFAULT_WAIT_MS = 5000;

/** Starts the fake Google (OAuth, Calendar v3, Gmail v1 and proxy test helpers) on 127.0.0.1. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const resolved = resolveOptions(options);
  const up = createUpstream(resolved);
  const server = await startRawHttpServer((raw) => dispatch(ROUTES, raw, up), {
    port: resolved.port,
    hostname: "127.0.0.1",
  });
  const url = `http://127.0.0.1:${server.port}`;
  const state = stateView(up);

  return {
    url,
    port: server.port,
    endpoints: {
      authorizationUrl: `${url}/o/oauth2/v2/auth`,
      tokenUrl: `${url}/token`,
      revokeUrl: `${url}/revoke`,
      userinfoUrl: `${url}/oauth2/v3/userinfo`,
      jwksUrl: `${url}/oauth2/v3/certs`,
      calendarBaseUrl: url,
      mailBaseUrl: url,
    },
    state,
    async stop() {
      up.notifications.close();
      await server.stop();
    },
    registerClient: (client) => up.oauth.registerClient(client),
    addUser: (user) => up.oauth.addUser(user),
    setNextAuthorization(override) {
      up.nextAuthorization = override;
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
      const email = (input.email ?? resolved.defaultUser).toLowerCase();
      up.oauth.ensureUser(email);
      const clientId = input.clientId ?? resolved.clients[0]?.clientId ?? "fake-upstream-direct";
      const scopes = input.scopes ?? [];
      const ttl = input.ttlSeconds ?? resolved.accessTokenTtlSeconds;
      const access = up.oauth.issueAccessToken(email, clientId, scopes, ttl);
      const refresh = input.offline === false ? undefined : up.oauth.issueRefreshToken(email, clientId, scopes);
      return { accessToken: access.token, expiresIn: ttl, ...(refresh ? { refreshToken: refresh.token } : {}) };
    },
    revokeRefreshToken: (token) => up.oauth.revokeRefreshToken(token),
    revokeAllFor: (email) => up.oauth.revokeAllFor(email),
    expireAccessTokens: (email) => up.oauth.expireAccessTokens(email),
    setTokenEndpointBehavior(behavior, opts) {
      up.tokenEndpoint.set(behavior, opts?.times);
    },
    setTokenDelay(ms) {
      up.tokenEndpoint.delayMs = ms;
    },
    changeCalendar: (calendarId) => notifyCalendarChanged(up, calendarId),
    createEvent(calendarId, fields = {}) {
      const now = new Date(up.now());
      const event = up.calendars.create(calendarId, {
        summary: "Fake event",
        start: { dateTime: now.toISOString() },
        end: { dateTime: new Date(now.getTime() + 3_600_000).toISOString() },
        ...fields,
      });
      notifyCalendarChanged(up, calendarId);
      return event;
    },
    invalidateSyncTokens: (calendarId) => up.calendars.invalidateSyncTokens(calendarId),
    sendNotification(channelId, resourceState) {
      const channel = up.channels.latest(channelId);
      if (!channel) throw new Error(`fake-upstream: no channel with id ${channelId}`);
      return up.notifications.send(channel, resourceState);
    },
    async awaitNotifications(n, timeoutMs = DEFAULT_WAIT_MS, filter = () => true) {
      const matching = () => up.notifications.attempts.filter(filter);
      await up.changes.waitUntil(
        () => matching().length >= n,
        timeoutMs,
        () => `wanted ${n} notifications, got ${matching().length}: ${JSON.stringify(up.notifications.attempts)}`,
      );
      return [...up.notifications.attempts];
    },
    settleNotifications: () => up.notifications.idle(),
    waitFor(condition, timeoutMs = DEFAULT_WAIT_MS, description = "condition") {
      return up.changes.waitUntil(
        () => condition(state),
        timeoutMs,
        () => description,
      );
    },
    requestCount: (path) => up.requestCounts.get(path) ?? 0,
  };
}

function stateView(up: Upstream): FakeUpstreamState {
  return {
    users: up.oauth.users,
    clients: up.oauth.clients,
    accessTokens: up.oauth.accessTokens,
    refreshTokens: up.oauth.refreshTokens,
    tokenRequests: up.tokenEndpoint.counts,
    tokenRequestLog: up.tokenEndpoint.log,
    tokenConcurrency: up.tokenEndpoint.concurrency,
    get channels() {
      return up.channels.views();
    },
    notificationsSent: up.notifications.attempts,
    requests: up.requests,
    requestCounts: up.requestCounts,
    sentMessages: up.sentMessages,
  };
}
export { type SandboxCredential, type SandboxUpstream, startSandboxUpstream } from "./sandbox.ts";
