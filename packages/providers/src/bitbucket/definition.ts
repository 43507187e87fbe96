import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developer.atlassian.com/cloud/bitbucket/oauth-2/";

/** Bitbucket Cloud; proxy paths start at the API's version ("/2.0/repositories"), as Nango's do. */
export const bitbucket = {
  name: "bitbucket",
  displayName: "Bitbucket",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: bitbucket.org/site/oauth2/authorize and /access_token, the consumer's key and secret in a
  // Basic header; access tokens expire in two hours, with a refresh token.
  authorizationUrl: "https://bitbucket.org/site/oauth2/authorize",
  tokenUrl: "https://bitbucket.org/site/oauth2/access_token",
  baseUrl: "https://api.bitbucket.org",
  clientAuthentication: "client_secret_basic",
  // OAUTH: scopes are chosen on the OAuth consumer, not in the authorization request; Bitbucket does
  // not classify them. Listed for documentation; none is sent by default.
  scopes: [
    { name: "account", description: "Read the user's account information." },
    { name: "repository", description: "Read repositories." },
    { name: "repository:write", description: "Read and write repositories." },
    { name: "pullrequest", description: "Read pull requests." },
    { name: "issue", description: "Read issues." },
    { name: "webhook", description: "Read and write webhooks." },
    { name: "email", description: "Read the user's email addresses." },
  ],
  identity: {
    url: "/2.0/user",
    idPath: "uuid",
    docsUrl: "https://developer.atlassian.com/cloud/bitbucket/rest/api-group-users/#api-user-get",
  },
} satisfies ProviderDefinitionInput;
