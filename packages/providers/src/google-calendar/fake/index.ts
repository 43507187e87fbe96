import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { type MountedRoute, mountRoutes, route } from "../../fake-kit/router.ts";
import { fake as googleFake } from "../../google/fake/index.ts";
import { calendarListEntryRoute, stopChannelRoute, watchRoute } from "./calendar-channel-routes.ts";
import {
  createEventRoute,
  deleteEventRoute,
  getEventRoute,
  listEventsRoute,
  updateEventRoute,
} from "./calendar-event-routes.ts";
import { type CalendarEvent, CalendarStore } from "./calendar-store.ts";
import { ChannelRegistry, type ChannelView } from "./channel-registry.ts";
import { type NotificationAttempt, NotificationSender } from "./notification-sender.ts";
import { type CalendarFakeOptions, resolveCalendarOptions } from "./options.ts";
import { type CalendarFakeState, notifyCalendarChanged } from "./state.ts";

export type { CalendarEvent, CalendarFakeOptions, ChannelView, NotificationAttempt };

export interface CalendarFakeControls {
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
}

export interface CalendarFakeStateView {
  /** Every channel ever created, with `state` worked out against the clock now. */
  readonly channels: ChannelView[];
  /** Finished notification deliveries, in completion order. */
  readonly notificationsSent: readonly NotificationAttempt[];
}

export interface CalendarFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  controls: CalendarFakeControls;
  state: CalendarFakeStateView;
  /** `calendarBaseUrl` replaces `https://www.googleapis.com`. */
  endpoints: { calendarBaseUrl: string };
  sandboxCredentials: Record<string, SandboxCredentialUrls>;
  stop(): void;
}

const DEFAULT_WAIT_MS = 5000;
const CALENDAR = "/calendar/v3/calendars/([^/]+)";

/** www.googleapis.com/calendar/v3 */
const ROUTES = [
  route("GET", /^\/calendar\/v3\/users\/me\/calendarList\/([^/]+)$/, calendarListEntryRoute),
  route("POST", new RegExp(`^${CALENDAR}/events/watch$`), watchRoute),
  route("GET", new RegExp(`^${CALENDAR}/events$`), listEventsRoute),
  route("POST", new RegExp(`^${CALENDAR}/events$`), createEventRoute),
  route("GET", new RegExp(`^${CALENDAR}/events/([^/]+)$`), getEventRoute),
  route("PATCH", new RegExp(`^${CALENDAR}/events/([^/]+)$`), updateEventRoute),
  route("PUT", new RegExp(`^${CALENDAR}/events/([^/]+)$`), updateEventRoute),
  route("DELETE", new RegExp(`^${CALENDAR}/events/([^/]+)$`), deleteEventRoute),
  route("POST", /^\/calendar\/v3\/channels\/stop$/, stopChannelRoute),
];

/** Google Calendar v3: calendars, events with incremental sync, watch channels and their push notifications. */
export const fake: ProviderFake<CalendarFakeOptions, CalendarFakeInstance> = {
  name: "google-calendar",
  start(host: FakeHost, options: CalendarFakeOptions): CalendarFakeInstance {
    const accounts = host.use(googleFake);
    const resolved = resolveCalendarOptions(options);
    const up: CalendarFakeState = {
      google: accounts.google,
      options: resolved,
      now: host.now,
      changes: host.changes,
      calendars: new CalendarStore(host.now),
      channels: new ChannelRegistry(host.now),
      notifications: new NotificationSender(
        { style: resolved.notificationHeaderStyle, timeoutMs: resolved.notificationTimeoutMs, now: host.now },
        host.changes,
      ),
    };
    return {
      routes: mountRoutes(up, ROUTES),
      endpoints: { calendarBaseUrl: host.url },
      sandboxCredentials: { "google-calendar": accounts.sandboxCredential(host.url) },
      state: {
        get channels() {
          return up.channels.views();
        },
        notificationsSent: up.notifications.attempts,
      },
      controls: controls(up),
      stop: () => up.notifications.close(),
    };
  },
};

function controls(up: CalendarFakeState): CalendarFakeControls {
  return {
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
  };
}
