import { join } from "node:path";
import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { googleConsentGuidance } from "../google/consent-guidance.ts";
import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH, GOOGLE_WEBHOOK_HEADERS } from "../google/google-oauth.ts";
import { headerNotificationReader } from "../notification-reading.ts";
import { calendarIdFromUri } from "../spec-matching.ts";
import {
  CHANNEL_MAX_LIFETIME_MS,
  channelCallOf,
  createCalendarChannel,
  readChannelCall,
  readCreatedCalendarChannel,
} from "./channel-calls.ts";
import { CALENDAR_METADATA_KEYS } from "./metadata-keys.ts";
import { readPrimaryCalendarId } from "./primary-calendar.ts";

const CAL = "https://www.googleapis.com/auth";
/** The largest notification body accepted (the upstream sends none). */
const NOTIFICATION_BODY_LIMIT = 64 * 1024;

/** The calendar provider of the spec; proxy paths are the upstream's verbatim (`/calendar/v3/...`). */
export const googleCalendar: ProviderAdapter = {
  ...defineProvider({
    name: "google-calendar",
    displayName: "Google Calendar",
    baseUrl: "https://www.googleapis.com",
    ...GOOGLE_OAUTH,
    scopes: [
      ...GOOGLE_BASIC_SCOPES,
      { name: `${CAL}/calendar`, description: "See, edit, share and delete all calendars.", sensitivity: "sensitive" },
      { name: `${CAL}/calendar.readonly`, description: "See and download all calendars.", sensitivity: "sensitive" },
      {
        name: `${CAL}/calendar.events`,
        description: "View and edit events on all calendars.",
        sensitivity: "sensitive",
      },
      {
        name: `${CAL}/calendar.events.readonly`,
        description: "View events on all calendars.",
        sensitivity: "sensitive",
      },
    ],
    defaultScopes: ["openid", "email", `${CAL}/calendar.readonly`],
    webhookHeaders: GOOGLE_WEBHOOK_HEADERS,
    allowedOverrideHosts: ["www.googleapis.com", "calendar.googleapis.com"],
    // PAGINATION: https://developers.google.com/calendar/api/guides/pagination (as Nango's providers.yaml, proxy.paginate)
    paginate: {
      type: "cursor",
      cursor_name_in_request: "pageToken",
      cursor_path_in_response: "nextPageToken",
      response_path: "items",
      limit_name_in_request: "maxSize",
    },
    storesEmailHash: true,
    authMode: "OAUTH2",
    docsUrl: "https://developers.google.com/workspace/calendar/api/guides/auth",
  }),
  consentGuidance: (scopes) => googleConsentGuidance(googleCalendar, scopes),
  proxyPathExample: "calendar/v3/users/me/calendarList",
  // The channel's lifecycle (spec: Customer-side scripts): scripts/README.md.
  scriptTemplates: {
    directory: join(import.meta.dir, "scripts"),
    names: ["post-connection-creation", "watch-renewal", "pre-connection-deletion"],
  },
  // spec: Versioning 2: the primary calendar's id is the account's email.
  readAccountEmail: readPrimaryCalendarId,
  metadataKeys: CALENDAR_METADATA_KEYS,
  notifications: {
    // The upstream's notifications carry no body; one sent anyway is bounded by this.
    bodyLimitBytes: NOTIFICATION_BODY_LIMIT,
    emailKeyOf: calendarIdFromUri,
    // Everything is in headers: the x-goog-* names, then the spec's x-provider-* ones; no handshake.
    read: headerNotificationReader(GOOGLE_WEBHOOK_HEADERS),
  },
  channels: {
    label: "watch channel",
    callOf: channelCallOf,
    readCall: readChannelCall,
    // spec: Upstream calendar API calls: POST {calendar_api_base}/v3/channels/stop; paths start at /calendar.
    stopCall: (channel) => ({
      method: "POST",
      path: "/calendar/v3/channels/stop",
      body: JSON.stringify({ id: channel.id, resourceId: channel.resourceId }),
    }),
    // https://developers.google.com/workspace/calendar/api/guides/push: events channels live at most
    // one week (604,800 s) unless a shorter ttl is asked for.
    maxLifetimeMs: CHANNEL_MAX_LIFETIME_MS,
    renewMarginMs: 24 * 3600 * 1000,
    create: createCalendarChannel,
    createWatchesAccount: true,
    readCreated: readCreatedCalendarChannel,
    // A channel cannot be extended: a new one is watched, then the old one stopped (spec: lifecycle, "Renewal").
    renew: "recreate",
  },
};
