import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { microsoftConsentGuidance } from "../microsoft/consent-guidance.ts";
import { GRAPH_IDENTITY, GRAPH_USER_ID } from "../microsoft/graph-identity.ts";
import { MICROSOFT_BASIC_SCOPES, MICROSOFT_OAUTH, MICROSOFT_TENANT_SETTING } from "../microsoft/identity-platform.ts";

/**
 * Outlook mail through Microsoft Graph (Nango's `outlook`): identity platform v2 OAuth with the tenant in
 * the URL, proxy paths Graph's verbatim (`/v1.0/me/messages`). Delegated mail permissions need no admin
 * consent: https://learn.microsoft.com/en-us/graph/permissions-reference.
 */
export const outlook: ProviderAdapter = {
  ...defineProvider({
    name: "outlook",
    displayName: "Outlook",
    authMode: "OAUTH2",
    docsUrl: "https://learn.microsoft.com/en-us/graph/outlook-mail-concept-overview",
    baseUrl: "https://graph.microsoft.com",
    ...MICROSOFT_OAUTH,
    scopes: [
      ...MICROSOFT_BASIC_SCOPES,
      {
        name: "Mail.ReadBasic",
        description: "Read the user's mail without the body, preview or attachments.",
        sensitivity: "sensitive",
      },
      { name: "Mail.Read", description: "Read the user's mail.", sensitivity: "sensitive" },
      {
        name: "Mail.ReadWrite",
        description: "Create, read, update and delete the user's mail (not send).",
        sensitivity: "sensitive",
      },
      { name: "Mail.Send", description: "Send mail as the user.", sensitivity: "sensitive" },
      {
        name: "MailboxSettings.Read",
        description: "Read the user's mailbox settings (automatic replies, time zone, locale).",
        sensitivity: "sensitive",
      },
      {
        name: "MailboxSettings.ReadWrite",
        description: "Create, read, update and delete the user's mailbox settings.",
        sensitivity: "sensitive",
      },
    ],
    // offline_access: a refresh token; User.Read: GET /v1.0/me for the account's id.
    defaultScopes: ["offline_access", "openid", "email", "User.Read", "Mail.Read"],
    connectionConfig: GRAPH_USER_ID,
    identity: GRAPH_IDENTITY,
    allowedOverrideHosts: ["graph.microsoft.com"],
  }),
  consentGuidance: (scopes) => microsoftConsentGuidance(outlook, scopes),
  proxyPathExample: "v1.0/me/messages",
  integrationSettings: [MICROSOFT_TENANT_SETTING],
};
