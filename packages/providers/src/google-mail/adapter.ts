import { join } from "node:path";
import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { googleConsentGuidance } from "../google/consent-guidance.ts";
import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH } from "../google/google-oauth.ts";
import { calendarIdFromUri } from "../spec-matching.ts";
import { readGmailAddress } from "./account-email.ts";
import { pubsubPushReader } from "./pubsub-push.ts";
import { GMAIL_SETTINGS } from "./settings.ts";
import { gmailWatches } from "./watch-calls.ts";

const GMAIL = "https://www.googleapis.com/auth";

/** The mail provider of the spec (scopes: spec, Authentication 6). */
export const googleMail: ProviderAdapter = {
  ...defineProvider({
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
    // Mail notifications come through a Pub/Sub topic, not channels with headers (spec: Events 5).
    webhookHeaders: null,
    allowedOverrideHosts: ["gmail.googleapis.com", "www.googleapis.com"],
    // Pushes name the mailbox's address: the hash lets them match a connection no script described
    // (managed channels), by rule 2's first tier.
    storesEmailHash: true,
    authMode: "OAUTH2",
    docsUrl: "https://developers.google.com/workspace/gmail/api/auth/scopes",
  }),
  consentGuidance: (scopes) => googleConsentGuidance(googleMail, scopes),
  readAccountEmail: readGmailAddress,
  // users.getProfile's scopes: a send-only grant cannot read the address (nor watch the mailbox).
  accountEmailScopes: [
    "https://mail.google.com/",
    ...["modify", "compose", "readonly", "metadata"].map((s) => `${GMAIL}/gmail.${s}`),
  ],
  proxyPathExample: "gmail/v1/users/me/profile",
  // The mailbox watch's lifecycle: scripts/README.md.
  scriptTemplates: {
    directory: join(import.meta.dir, "scripts"),
    names: ["post-connection-creation", "watch-renewal", "pre-connection-deletion"],
  },
  // Pub/Sub push requests (pubsub-push.ts), matched by the mailbox's email (rule 2's tiers).
  notifications: {
    // A push carries one message; Pub/Sub's own limit on a message is far larger, Gmail's is tiny.
    bodyLimitBytes: 64 * 1024,
    emailKeyOf: calendarIdFromUri,
    read: pubsubPushReader(),
  },
  channels: gmailWatches,
  integrationSettings: GMAIL_SETTINGS,
};
