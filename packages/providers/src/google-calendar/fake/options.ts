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

/** With `enforceScopes`, calendar routes demand a scope starting with this. */
export const CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar"];

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
