import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const METADATA = "https://login.mailchimp.com/oauth2/metadata";

/**
 * Mailchimp Marketing API (Nango's `mailchimp`). Mailchimp has no scopes and its tokens never expire (no
 * refresh token). Each account lives in a data center: after the code exchange, the metadata request
 * answers its `dc`, which the API host is built from (`https://{dc}.api.mailchimp.com`):
 * https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/.
 */
export const mailchimp = {
  name: "mailchimp",
  displayName: "Mailchimp",
  authMode: "OAUTH2",
  docsUrl: "https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/",
  baseUrl: "https://{dc}.api.mailchimp.com",
  authorizationUrl: "https://login.mailchimp.com/oauth2/authorize",
  tokenUrl: "https://login.mailchimp.com/oauth2/token",
  scopes: [],
  defaultScopes: [],
  connectionConfig: [
    { key: "dc", from: "request", url: METADATA, path: "dc" },
    // The account identity: the metadata's user id (the identity request below).
    { key: "userId", from: "request", url: METADATA, path: "user_id" },
  ],
  identity: {
    url: METADATA,
    idPath: "user_id",
    docsUrl: "https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/",
  },
  allowedOverrideHosts: [],
} satisfies ProviderDefinitionInput;
