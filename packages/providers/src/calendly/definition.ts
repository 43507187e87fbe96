import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Calendly API v2 (Nango's `calendly`). Web clients authenticate to the token endpoint with HTTP Basic;
 * access tokens last two hours, a refresh token until it is used (once); the token answer names the authorizing user
 * (`owner`) and organization as URIs:
 * https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-refresh-token.
 */
export const calendly = {
  name: "calendly",
  displayName: "Calendly",
  authMode: "OAUTH2",
  docsUrl: "https://developer.calendly.com/how-to-access-calendly-data-on-behalf-of-authenticated-users",
  baseUrl: "https://api.calendly.com",
  authorizationUrl: "https://auth.calendly.com/oauth/authorize",
  tokenUrl: "https://auth.calendly.com/oauth/token",
  clientAuthentication: "client_secret_basic",
  // https://developer.calendly.com/docs/authentication/scopes (since March 2026; a new app gets no API
  // access without scopes; `:write` includes the `:read` of its domain). Calendly classifies no scope as
  // sensitive: every one is "basic" here.
  scopes: [
    {
      name: "scheduled_events:read",
      description: "Retrieve scheduled events and their invitees.",
      sensitivity: "basic",
    },
    { name: "event_types:read", description: "Retrieve event types and their available times.", sensitivity: "basic" },
    { name: "event_types:write", description: "Create or update event types.", sensitivity: "basic" },
    { name: "availability:read", description: "Retrieve user and event-type availability.", sensitivity: "basic" },
    { name: "availability:write", description: "Update event-type availability.", sensitivity: "basic" },
    { name: "locations:read", description: "Retrieve configured meeting locations.", sensitivity: "basic" },
    { name: "routing_forms:read", description: "Retrieve routing forms and their submissions.", sensitivity: "basic" },
    {
      name: "shares:write",
      description: "Create single-use scheduling links from an event type.",
      sensitivity: "basic",
    },
  ],
  defaultScopes: ["scheduled_events:read", "event_types:read"],
  // The account identity is in the token answer itself (GET /users/me answers the same user, its URI in
  // `resource.uri`: https://developer.calendly.com/docs/api-guides/how-to-find-the-organization-or-user-uri).
  connectionConfig: [
    { key: "owner", from: "token_response", path: "owner" },
    { key: "organization", from: "token_response", path: "organization" },
  ],
  identity: {
    url: "/users/me",
    idPath: "resource.uri",
    docsUrl: "https://developer.calendly.com/api-docs/calendly-api/users/get-current-user",
  },
  allowedOverrideHosts: ["api.calendly.com"],
  // PAGINATION: https://developer.calendly.com/api-docs/ZG9jOjM2MzE2MDM4-pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "link",
    link_path_in_response_body: "pagination.next_page",
  },
} satisfies ProviderDefinitionInput;
