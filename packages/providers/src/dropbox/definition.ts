import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Dropbox API v2 (Nango's `dropbox`). A refresh token is issued only for `token_access_type=offline`;
 * access tokens are short-lived (four hours); the token answer carries the account's id:
 * https://developers.dropbox.com/oauth-guide, https://www.dropbox.com/developers/documentation/http/documentation#oauth2-authorize.
 * Dropbox classifies no scope as sensitive: every one is "basic" here.
 */
export const dropbox = {
  name: "dropbox",
  displayName: "Dropbox",
  authMode: "OAUTH2",
  docsUrl: "https://developers.dropbox.com/oauth-guide",
  baseUrl: "https://api.dropboxapi.com",
  authorizationUrl: "https://www.dropbox.com/oauth2/authorize",
  tokenUrl: "https://api.dropboxapi.com/oauth2/token",
  authorizationParams: { token_access_type: "offline" },
  scopes: [
    { name: "account_info.read", description: "View basic information about the account.", sensitivity: "basic" },
    { name: "files.metadata.read", description: "View information about files and folders.", sensitivity: "basic" },
    {
      name: "files.metadata.write",
      description: "View and edit information about files and folders.",
      sensitivity: "basic",
    },
    { name: "files.content.read", description: "View the content of files and folders.", sensitivity: "basic" },
    { name: "files.content.write", description: "Edit the content of files and folders.", sensitivity: "basic" },
    { name: "sharing.read", description: "View sharing settings and collaborators.", sensitivity: "basic" },
    { name: "sharing.write", description: "View and manage sharing settings and collaborators.", sensitivity: "basic" },
    { name: "file_requests.read", description: "View file requests.", sensitivity: "basic" },
    { name: "file_requests.write", description: "Manage file requests.", sensitivity: "basic" },
    { name: "contacts.read", description: "View manually added contacts.", sensitivity: "basic" },
  ],
  defaultScopes: ["account_info.read", "files.metadata.read"],
  // The account identity: `account_id` in the token answer (POST /2/users/get_current_account has the rest;
  // an RPC endpoint without arguments, so its JSON body is `null`).
  connectionConfig: [{ key: "accountId", from: "token_response", path: "account_id" }],
  identity: {
    url: "/2/users/get_current_account",
    body: "null",
    idPath: "account_id",
    docsUrl: "https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account",
  },
  allowedOverrideHosts: ["api.dropboxapi.com", "content.dropboxapi.com"],
} satisfies ProviderDefinitionInput;
