import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Zoom's user-managed OAuth app (Nango's `zoom`; base URL `/v2` as Nango's, so proxy paths are `/users/me`).
 * The token request authenticates the client with HTTP Basic; refresh tokens are single use (each refresh
 * answers a new one). Granular scopes are chosen on the app in the Marketplace; the `scope` parameter may
 * narrow them: https://developers.zoom.us/docs/integrations/oauth/, https://developers.zoom.us/docs/integrations/oauth-scopes-granular/.
 * Zoom classifies no scope as sensitive: every one is "basic" here.
 */
export const zoom = {
  name: "zoom",
  displayName: "Zoom",
  authMode: "OAUTH2",
  docsUrl: "https://developers.zoom.us/docs/integrations/oauth/",
  baseUrl: "https://api.zoom.us/v2",
  authorizationUrl: "https://zoom.us/oauth/authorize",
  tokenUrl: "https://zoom.us/oauth/token",
  clientAuthentication: "client_secret_basic",
  // https://developers.zoom.us/docs/integrations/oauth/#using-pkce: S256 challenges are accepted.
  pkce: "optional",
  scopeSeparator: "comma",
  scopes: [
    { name: "user:read:user", description: "View a user (GET /users/{userId}, /users/me).", sensitivity: "basic" },
    { name: "user:read:email", description: "View a user's email address.", sensitivity: "basic" },
    { name: "meeting:read:list_meetings", description: "View a user's meetings.", sensitivity: "basic" },
    { name: "meeting:read:meeting", description: "View a meeting.", sensitivity: "basic" },
    { name: "meeting:write:meeting", description: "Create a meeting for a user.", sensitivity: "basic" },
    { name: "meeting:update:meeting", description: "Update a meeting.", sensitivity: "basic" },
    { name: "meeting:delete:meeting", description: "Delete a meeting.", sensitivity: "basic" },
    {
      name: "cloud_recording:read:list_user_recordings",
      description: "List a user's cloud recordings.",
      sensitivity: "basic",
    },
  ],
  defaultScopes: ["user:read:user"],
  // The account identity: GET /users/me (https://developers.zoom.us/docs/api/users/#tag/users/GET/users/{userId}).
  connectionConfig: [{ key: "userId", from: "request", url: "/users/me", path: "id" }],
  identity: {
    url: "/users/me",
    idPath: "id",
    docsUrl: "https://developers.zoom.us/docs/api/users/#tag/users/GET/users/{userId}",
  },
  allowedOverrideHosts: ["api.zoom.us"],
  // PAGINATION: https://developers.zoom.us/docs/api/using-zoom-apis/#pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "cursor",
    cursor_name_in_request: "next_page_token",
    cursor_path_in_response: "next_page_token",
    limit_name_in_request: "page_size",
  },
} satisfies ProviderDefinitionInput;
