import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Discord's OAuth2 for user data (Nango's `discord`; base URL the host, as Nango's, so proxy paths are
 * `/api/v10/...`). Access tokens last a week and come with a refresh token:
 * https://discord.com/developers/docs/topics/oauth2. Discord classifies no scope as sensitive: every one
 * is "basic" here (the few that need Discord's approval are left out).
 */
export const discord = {
  name: "discord",
  displayName: "Discord",
  authMode: "OAUTH2",
  docsUrl: "https://discord.com/developers/docs/topics/oauth2",
  baseUrl: "https://discord.com",
  authorizationUrl: "https://discord.com/oauth2/authorize",
  tokenUrl: "https://discord.com/api/oauth2/token",
  scopes: [
    { name: "identify", description: "Read the user's profile (GET /users/@me) without email.", sensitivity: "basic" },
    { name: "email", description: "Read the user's email address (with identify).", sensitivity: "basic" },
    { name: "guilds", description: "List the servers (guilds) the user is in.", sensitivity: "basic" },
    {
      name: "guilds.members.read",
      description: "Read the user's member information in a server.",
      sensitivity: "basic",
    },
    { name: "connections", description: "List the user's third-party account connections.", sensitivity: "basic" },
    { name: "guilds.join", description: "Join users to a server the app's bot is in.", sensitivity: "basic" },
    {
      name: "webhook.incoming",
      description: "Create an incoming webhook in a channel the user picks.",
      sensitivity: "basic",
    },
    { name: "bot", description: "Add the app's bot to a server the user picks.", sensitivity: "basic" },
  ],
  defaultScopes: ["identify"],
  // The account identity: GET /users/@me (https://discord.com/developers/docs/resources/user#get-current-user).
  connectionConfig: [{ key: "userId", from: "request", url: "/api/v10/users/@me", path: "id" }],
  identity: {
    url: "/api/v10/users/@me",
    idPath: "id",
    docsUrl: "https://discord.com/developers/docs/resources/user#get-current-user",
  },
  allowedOverrideHosts: ["discord.com"],
} satisfies ProviderDefinitionInput;
