import type { ProviderAdapter } from "../adapter.ts";
import { googleConsentGuidance } from "../google/consent-guidance.ts";
import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH } from "../google/google-oauth.ts";
import { headerNotificationReader } from "../notification-reading.ts";
import { calendarIdFromUri } from "../spec-matching.ts";

const GMAIL = "https://www.googleapis.com/auth";

/** The mail provider of the spec (scopes: spec, Authentication 6). */
export const googleMail: ProviderAdapter = {
  name: "google-mail",
  displayName: "Gmail",
  baseUrl: "https://gmail.googleapis.com",
  ...GOOGLE_OAUTH,
  scopes: [
    ...GOOGLE_BASIC_SCOPES,
    {
      name: "https://mail.google.com/",
      description: "Read, compose, send and permanently delete all mail.",
      sensitivity: "restricted",
    },
    { name: `${GMAIL}/gmail.readonly`, description: "View messages and settings.", sensitivity: "restricted" },
    { name: `${GMAIL}/gmail.send`, description: "Send mail on the user's behalf.", sensitivity: "sensitive" },
    { name: `${GMAIL}/gmail.compose`, description: "Manage drafts and send mail.", sensitivity: "restricted" },
    {
      name: `${GMAIL}/gmail.modify`,
      description: "Read, compose and send mail; no permanent delete.",
      sensitivity: "restricted",
    },
  ],
  defaultScopes: ["email", "profile", `${GMAIL}/gmail.readonly`],
  // Mail notifications use a publish/subscribe topic upstream, not channels (spec: Events 5).
  webhookHeaders: null,
  consentGuidance: (scopes) => googleConsentGuidance(googleMail, scopes),
  allowedOverrideHosts: ["gmail.googleapis.com", "www.googleapis.com"],
  storesEmailHash: false,
  proxyPathExample: "gmail/v1/users/me/profile",
  // Notifications sent with the spec's x-provider-* headers are matched by the spec's rules, as for any provider.
  notifications: {
    bodyLimitBytes: 64 * 1024,
    emailKeyOf: calendarIdFromUri,
    read: headerNotificationReader(null),
  },
};
