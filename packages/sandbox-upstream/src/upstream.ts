import type { AuthorizationOverride } from "./authorize-routes.ts";
import { CalendarStore } from "./calendar-store.ts";
import { ChannelRegistry } from "./channel-registry.ts";
import type { ResolvedOptions } from "./fake-upstream-options.ts";
import { IdTokenSigner } from "./id-token-signer.ts";
import { NotificationSender } from "./notification-sender.ts";
import { OAuthStore } from "./oauth-store.ts";
import { TokenEndpointControl } from "./token-endpoint-control.ts";
import { StateChanges } from "./state-changes.ts";

export interface RequestLogEntry {
  method: string;
  /** Raw path as on the request line (no query). */
  path: string;
  /** Raw query string without `?`; "" when absent. */
  query: string;
  headers: Record<string, string>;
  /** Injected-clock arrival time. */
  at: number;
}

export interface SentMessage {
  id: string;
  threadId: string;
  from: string;
  /** The RFC 822 message as the client sent it (decoded from base64url when sent as JSON). */
  raw: string;
}

/** The fake provider's whole in-memory world, handed to every route. */
export interface Upstream {
  options: ResolvedOptions;
  now: () => number;
  oauth: OAuthStore;
  idTokens: IdTokenSigner;
  calendars: CalendarStore;
  channels: ChannelRegistry;
  notifications: NotificationSender;
  changes: StateChanges;
  tokenEndpoint: TokenEndpointControl;
  /** One-shot override for the next consent decision. */
  nextAuthorization: AuthorizationOverride | undefined;
  /** Failures served so far per /flaky key. */
  flakyAttempts: Map<string, number>;
  requests: RequestLogEntry[];
  requestCounts: Map<string, number>;
  sentMessages: SentMessage[];
}

export function createUpstream(options: ResolvedOptions): Upstream {
  const now = options.now;
  const changes = new StateChanges();
  const oauth = new OAuthStore(now);
  oauth.addUser({ email: options.defaultUser });
  for (const client of options.clients) oauth.registerClient(client);
  return {
    options,
    now,
    oauth,
    idTokens: new IdTokenSigner(now),
    calendars: new CalendarStore(now),
    channels: new ChannelRegistry(now),
    notifications: new NotificationSender(
      { style: options.notificationHeaderStyle, timeoutMs: options.notificationTimeoutMs, now },
      changes,
    ),
    changes,
    tokenEndpoint: new TokenEndpointControl(options.tokenDelayMs),
    nextAuthorization: undefined,
    flakyAttempts: new Map(),
    requests: [],
    requestCounts: new Map(),
    sentMessages: [],
  };
}

/** Sends "exists" to every live channel on the calendar (spec: channel lifecycle, change of watched resource). */
export function notifyCalendarChanged(up: Upstream, calendarId: string): number {
  const channels = up.channels.activeOn(calendarId);
  for (const channel of channels) up.notifications.send(channel, "exists");
  return channels.length;
}
