import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * X (formerly Twitter) API v2 with OAuth 2.0 (Nango's `twitter-v2`). PKCE is required; a confidential
 * client authenticates to the token endpoint with HTTP Basic; access tokens last two hours and a refresh
 * token comes only with `offline.access`:
 * https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code,
 * https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token. X classifies no scope as
 * sensitive: every one is "basic" here.
 */
export const twitterV2 = {
  name: "twitter-v2",
  displayName: "X",
  authMode: "OAUTH2",
  docsUrl: "https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code",
  baseUrl: "https://api.x.com",
  authorizationUrl: "https://x.com/i/oauth2/authorize",
  tokenUrl: "https://api.x.com/2/oauth2/token",
  clientAuthentication: "client_secret_basic",
  pkce: "required",
  scopes: [
    {
      name: "tweet.read",
      description: "All the posts you can view, including protected accounts'.",
      sensitivity: "basic",
    },
    { name: "tweet.write", description: "Post and repost for you.", sensitivity: "basic" },
    { name: "users.read", description: "Any account you can view.", sensitivity: "basic" },
    { name: "follows.read", description: "People who follow you and people you follow.", sensitivity: "basic" },
    { name: "follows.write", description: "Follow and unfollow people for you.", sensitivity: "basic" },
    { name: "like.read", description: "Posts you liked and likes you can view.", sensitivity: "basic" },
    { name: "like.write", description: "Like and unlike posts for you.", sensitivity: "basic" },
    { name: "list.read", description: "Lists, list members and list followers you can view.", sensitivity: "basic" },
    { name: "bookmark.read", description: "Get your bookmarked posts.", sensitivity: "basic" },
    { name: "dm.read", description: "All your direct messages.", sensitivity: "basic" },
    { name: "dm.write", description: "Send and manage direct messages for you.", sensitivity: "basic" },
    { name: "media.write", description: "Upload media.", sensitivity: "basic" },
    {
      name: "offline.access",
      description: "Stay connected to your account until you revoke access.",
      sensitivity: "basic",
    },
  ],
  defaultScopes: ["tweet.read", "users.read", "offline.access"],
  // The account identity: GET /2/users/me (users.read and tweet.read).
  connectionConfig: [{ key: "userId", from: "request", url: "/2/users/me", path: "data.id" }],
  identity: { url: "/2/users/me", idPath: "data.id", docsUrl: "https://docs.x.com/x-api/users/get-my-user" },
  allowedOverrideHosts: ["api.x.com", "api.twitter.com"],
} satisfies ProviderDefinitionInput;
