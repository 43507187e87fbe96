import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH, GOOGLE_WEBHOOK_HEADERS } from "./google.ts";
import type { ProviderTemplate } from "./provider-template.ts";

const CAL = "https://www.googleapis.com/auth";

/** The calendar provider of the spec; proxy paths are the upstream's verbatim (`/calendar/v3/...`). */
export const googleCalendar: ProviderTemplate = {
  name: "google-calendar",
  displayName: "Google Calendar",
  baseUrl: "https://www.googleapis.com",
  ...GOOGLE_OAUTH,
  scopes: [
    ...GOOGLE_BASIC_SCOPES,
    { name: `${CAL}/calendar`, description: "See, edit, share and delete all calendars.", sensitivity: "sensitive" },
    { name: `${CAL}/calendar.readonly`, description: "See and download all calendars.", sensitivity: "sensitive" },
    { name: `${CAL}/calendar.events`, description: "View and edit events on all calendars.", sensitivity: "sensitive" },
    {
      name: `${CAL}/calendar.events.readonly`,
      description: "View events on all calendars.",
      sensitivity: "sensitive",
    },
  ],
  defaultScopes: ["openid", "email", `${CAL}/calendar.readonly`],
  webhookHeaders: GOOGLE_WEBHOOK_HEADERS,
  allowedOverrideHosts: ["www.googleapis.com", "calendar.googleapis.com"],
  storesEmailHash: true,
};
