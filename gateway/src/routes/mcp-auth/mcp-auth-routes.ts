import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { UserMcpSessions } from "../../mcp-auth/user-mcp-sessions.ts";
import type { Route } from "../../router.ts";
import { authorizeRoute } from "./authorize-route.ts";
import { clientRegistrationRoute } from "./client-registration-route.ts";
import { consentRoutes } from "./consent-routes.ts";
import { mcpServerRoutes } from "./mcp-server-routes.ts";
import { oauthMetadataRoutes } from "./oauth-metadata-routes.ts";
import { tokenRoute } from "./token-route.ts";
import { userMcpRoutes } from "./user-mcp-routes.ts";

/**
 * The MCP front door for end users' agents: MCP URLs the customer issues, Junction as the OAuth 2.1
 * authorization server of MCP clients (metadata, registration, authorize, consent, token), and the
 * MCP URLs themselves as protected resources. See docs/agents.md.
 */
export function mcpAuthRoutes(auth: McpAuth): Route[] {
  const sessions = new UserMcpSessions(auth.now);
  return [
    ...mcpServerRoutes(auth, (id) => sessions.closeAll(id)),
    ...oauthMetadataRoutes(auth),
    clientRegistrationRoute(auth),
    authorizeRoute(auth),
    ...consentRoutes(auth),
    tokenRoute(auth),
    ...userMcpRoutes(auth, sessions),
  ];
}
