import { join } from "node:path";
import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { microsoftConsentGuidance } from "../microsoft/consent-guidance.ts";
import { MICROSOFT_BASIC_SCOPES, MICROSOFT_OAUTH, MICROSOFT_TENANT_SETTING } from "../microsoft/identity-platform.ts";
import { readGraphAccountEmail } from "./account-email.ts";
import {
  createSubscription,
  deleteSubscription,
  readCreatedSubscription,
  readSubscriptionCall,
  SUBSCRIPTION_MAX_LIFETIME_MS,
  renewSubscription,
  subscriptionCallOf,
} from "./channel-calls.ts";
import { MAX_BATCH_ITEMS, NOTIFICATION_BODY_LIMIT, readGraphNotification } from "./notification-read.ts";

/**
 * Outlook calendars through Microsoft Graph: identity platform v2 OAuth with the
 * tenant in the URL, proxy paths Graph's verbatim (`/v1.0/...`), change notifications matched by
 * their subscription through the channel registry. Scopes and whether they need an admin's consent:
 * https://learn.microsoft.com/en-us/graph/permissions-reference.
 */
export const microsoftOutlookCalendar: ProviderAdapter = {
  ...defineProvider({
    name: "microsoft-outlook-calendar",
    displayName: "Outlook Calendar",
    baseUrl: "https://graph.microsoft.com",
    ...MICROSOFT_OAUTH,
    scopes: [
      ...MICROSOFT_BASIC_SCOPES,
      {
        name: "Calendars.Read",
        description: "Read the user's calendars (delegated; no admin consent required).",
        sensitivity: "sensitive",
      },
      {
        name: "Calendars.ReadWrite",
        description:
          "Create, read, update and delete events in the user's calendars (delegated; no admin consent required).",
        sensitivity: "sensitive",
      },
    ],
    // offline_access: a refresh token; User.Read: GET /v1.0/me for the account's email.
    defaultScopes: ["offline_access", "openid", "email", "User.Read", "Calendars.Read"],
    // Graph says everything in the body (notifications, validation in the query), nothing in headers.
    webhookHeaders: null,
    allowedOverrideHosts: ["graph.microsoft.com"],
    storesEmailHash: true,
    authMode: "OAUTH2",
    docsUrl: "https://learn.microsoft.com/en-us/graph/outlook-calendar-concept-overview",
  }),
  consentGuidance: (scopes) => microsoftConsentGuidance(microsoftOutlookCalendar, scopes),
  proxyPathExample: "v1.0/me/events",
  integrationSettings: [MICROSOFT_TENANT_SETTING],
  // The subscription's lifecycle: scripts/README.md.
  scriptTemplates: {
    directory: join(import.meta.dir, "scripts"),
    names: ["post-connection-creation", "subscription-renewal", "pre-connection-deletion"],
  },
  readAccountEmail: readGraphAccountEmail,
  notifications: {
    bodyLimitBytes: NOTIFICATION_BODY_LIMIT,
    maxItems: MAX_BATCH_ITEMS,
    // Matched by subscription (the registry's channel), never by a resource URI's email.
    emailKeyOf: () => null,
    read: readGraphNotification,
  },
  channels: {
    label: "subscription",
    callOf: subscriptionCallOf,
    readCall: readSubscriptionCall,
    stopCall: deleteSubscription,
    maxLifetimeMs: SUBSCRIPTION_MAX_LIFETIME_MS,
    // Renewed a day before expiry: Graph's reauthorizationRequired warnings and retries fit in it.
    renewMarginMs: 24 * 3600 * 1000,
    create: createSubscription,
    readCreated: readCreatedSubscription,
    renew: renewSubscription,
  },
};
