import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { microsoftConsentGuidance } from "../microsoft/consent-guidance.ts";
import { GRAPH_IDENTITY, GRAPH_USER_ID } from "../microsoft/graph-identity.ts";
import { MICROSOFT_BASIC_SCOPES, MICROSOFT_OAUTH, MICROSOFT_TENANT_SETTING } from "../microsoft/identity-platform.ts";

/**
 * OneDrive (and SharePoint document libraries) through Microsoft Graph (Nango's `one-drive`): identity
 * platform v2 OAuth with the tenant in the URL, proxy paths Graph's verbatim (`/v1.0/me/drive`). Delegated
 * Files permissions need no admin consent: https://learn.microsoft.com/en-us/graph/permissions-reference.
 */
export const oneDrive: ProviderAdapter = {
  ...defineProvider({
    name: "one-drive",
    displayName: "OneDrive",
    authMode: "OAUTH2",
    docsUrl: "https://learn.microsoft.com/en-us/onedrive/developer/rest-api/getting-started/graph-oauth",
    baseUrl: "https://graph.microsoft.com",
    ...MICROSOFT_OAUTH,
    scopes: [
      ...MICROSOFT_BASIC_SCOPES,
      { name: "Files.Read", description: "Read the user's files.", sensitivity: "sensitive" },
      {
        name: "Files.ReadWrite",
        description: "Create, read, update and delete the user's files.",
        sensitivity: "sensitive",
      },
      { name: "Files.Read.All", description: "Read all files the user can access.", sensitivity: "sensitive" },
      {
        name: "Files.ReadWrite.All",
        description: "Create, read, update and delete all files the user can access.",
        sensitivity: "sensitive",
      },
      {
        name: "Files.ReadWrite.AppFolder",
        description: "Create, read, update and delete files in the app's own folder.",
        sensitivity: "sensitive",
      },
      {
        name: "Sites.Read.All",
        description: "Read documents and list items in all site collections the user can access.",
        sensitivity: "sensitive",
      },
    ],
    defaultScopes: ["offline_access", "openid", "email", "User.Read", "Files.Read"],
    connectionConfig: GRAPH_USER_ID,
    identity: GRAPH_IDENTITY,
    allowedOverrideHosts: ["graph.microsoft.com"],
  }),
  consentGuidance: (scopes) => microsoftConsentGuidance(oneDrive, scopes),
  proxyPathExample: "v1.0/me/drive/root/children",
  integrationSettings: [MICROSOFT_TENANT_SETTING],
};
