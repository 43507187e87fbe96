import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { microsoftConsentGuidance } from "../microsoft/consent-guidance.ts";
import { GRAPH_IDENTITY, GRAPH_USER_ID } from "../microsoft/graph-identity.ts";
import { MICROSOFT_BASIC_SCOPES, MICROSOFT_OAUTH, MICROSOFT_TENANT_SETTING } from "../microsoft/identity-platform.ts";

/**
 * Microsoft Teams through Microsoft Graph (Nango's `microsoft-teams`): identity platform v2 OAuth with the
 * tenant in the URL, proxy paths Graph's verbatim (`/v1.0/me/joinedTeams`). Which delegated permissions
 * need an admin's consent ("restricted" here): https://learn.microsoft.com/en-us/graph/permissions-reference.
 */
export const microsoftTeams: ProviderAdapter = {
  ...defineProvider({
    name: "microsoft-teams",
    displayName: "Microsoft Teams",
    authMode: "OAUTH2",
    docsUrl: "https://learn.microsoft.com/en-us/graph/teams-concept-overview",
    baseUrl: "https://graph.microsoft.com",
    ...MICROSOFT_OAUTH,
    scopes: [
      ...MICROSOFT_BASIC_SCOPES,
      {
        name: "Team.ReadBasic.All",
        description: "Read the names and descriptions of the teams the user is a member of.",
        sensitivity: "sensitive",
      },
      {
        name: "Channel.ReadBasic.All",
        description: "Read the names and descriptions of channels.",
        sensitivity: "sensitive",
      },
      {
        name: "ChannelMessage.Read.All",
        description: "Read the messages in the channels the user can access (admin consent required).",
        sensitivity: "restricted",
      },
      { name: "ChannelMessage.Send", description: "Send channel messages as the user.", sensitivity: "sensitive" },
      { name: "Chat.Read", description: "Read the user's chat messages.", sensitivity: "sensitive" },
      {
        name: "Chat.ReadWrite",
        description: "Read and write the user's chat messages.",
        sensitivity: "sensitive",
      },
      { name: "ChatMessage.Send", description: "Send chat messages as the user.", sensitivity: "sensitive" },
      {
        name: "TeamMember.Read.All",
        description: "Read the members of teams (admin consent required).",
        sensitivity: "restricted",
      },
      {
        name: "OnlineMeetings.ReadWrite",
        description: "Read and create online meetings as the user.",
        sensitivity: "sensitive",
      },
    ],
    defaultScopes: ["offline_access", "openid", "email", "User.Read", "Team.ReadBasic.All", "Channel.ReadBasic.All"],
    connectionConfig: GRAPH_USER_ID,
    identity: GRAPH_IDENTITY,
    allowedOverrideHosts: ["graph.microsoft.com"],
  }),
  consentGuidance: (scopes) => microsoftConsentGuidance(microsoftTeams, scopes),
  proxyPathExample: "v1.0/me/joinedTeams",
  integrationSettings: [MICROSOFT_TENANT_SETTING],
};
