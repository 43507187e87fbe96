/** How channel notifications name their headers. */
export type NotificationHeaderStyle = "goog" | "provider";

/** Options of the Google Calendar fake; every field has a test-friendly default. */
export interface CalendarFakeOptions {
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
}

export type CalendarFakeResolvedOptions = Required<CalendarFakeOptions>;

const AUTH = "https://www.googleapis.com/auth";

/**
 * With `enforceScopes`, what each calendar route accepts, as the "Authorization" section of each method's
 * reference lists it (https://developers.google.com/workspace/calendar/api/v3/reference/events/list,
 * …/events/insert, …/calendarList/get): reading events (list, get, watch) takes a read or write scope,
 * changing them a write scope only.
 */
export const CALENDAR_READ_SCOPES = [
  `${AUTH}/calendar`,
  `${AUTH}/calendar.readonly`,
  `${AUTH}/calendar.events`,
  `${AUTH}/calendar.events.readonly`,
  `${AUTH}/calendar.events.owned`,
  `${AUTH}/calendar.events.owned.readonly`,
  `${AUTH}/calendar.app.created`,
];
export const CALENDAR_WRITE_SCOPES = [
  `${AUTH}/calendar`,
  `${AUTH}/calendar.events`,
  `${AUTH}/calendar.events.owned`,
  `${AUTH}/calendar.app.created`,
];
export const CALENDAR_LIST_SCOPES = [
  `${AUTH}/calendar`,
  `${AUTH}/calendar.readonly`,
  `${AUTH}/calendar.calendarlist`,
  `${AUTH}/calendar.calendarlist.readonly`,
];

const DAY_MS = 24 * 60 * 60 * 1000;

export function resolveCalendarOptions(options: CalendarFakeOptions): CalendarFakeResolvedOptions {
  return {
    allowInsecureAddresses: options.allowInsecureAddresses ?? true,
    notificationHeaderStyle: options.notificationHeaderStyle ?? "goog",
    notificationTimeoutMs: options.notificationTimeoutMs ?? 5000,
    resourceUriBase: (options.resourceUriBase ?? "https://www.googleapis.com").replace(/\/+$/, ""),
    defaultChannelTtlMs: options.defaultChannelTtlMs ?? 7 * DAY_MS,
    maxChannelTtlMs: options.maxChannelTtlMs ?? 30 * DAY_MS,
    projectNumber: options.projectNumber ?? "123456789012",
  };
}
