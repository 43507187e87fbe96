import type { Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClients } from "../clients.ts";
import { actionTool } from "../routes/mcp/action-tool.ts";
import type { McpServerGrant } from "./mcp-auth-store.ts";

/** A tool of an MCP URL: the action behind it and its integration. */
export interface UserTool {
  /** The tool as listed (its name prefixed with the integration when the URL covers several). */
  listed: Tool;
  /** The action's own tool (its name is the action's). */
  action: Tool;
  integration: string;
  /** The integration as the end user knows it: its display name, and its id when they differ. */
  label: string;
}

/** The integrations an MCP URL covers: those it names, or every integration of the environment. */
export async function coveredIntegrations(clients: GatewayClients, server: McpServerGrant): Promise<Integration[]> {
  const { integrations } = await clients.connection.listIntegrations({});
  if (server.integrations.length === 0) return integrations;
  return integrations.filter((i) => server.integrations.includes(i.uniqueKey));
}

/** Tools of several integrations are named `<integration>__<action>`: letters, digits, `_` and `-` stay valid for clients that allow only those. */
export const TOOL_NAME_SEPARATOR = "__";

/**
 * The tools of an MCP URL: the deployed actions of the integrations it covers. When it is limited to
 * one integration they keep the action's name; otherwise each is `<integration>__<action>`, so two
 * integrations' actions of one name stay apart, and the description names the integration.
 */
export async function userTools(clients: GatewayClients, server: McpServerGrant): Promise<Map<string, UserTool>> {
  const integrations = await coveredIntegrations(clients, server);
  const prefixed = server.integrations.length !== 1;
  const byName = new Map<string, UserTool>();
  const lists = await Promise.all(
    integrations.map((i) =>
      clients.scripts.listScripts({ providerConfigKey: i.uniqueKey }).then((r) => [i, r] as const),
    ),
  );
  for (const [integration, res] of lists) {
    for (const script of res.scripts) {
      const action = actionTool(script);
      if (!action) continue;
      const name = prefixed ? `${integration.uniqueKey}${TOOL_NAME_SEPARATOR}${action.name}` : action.name;
      const { displayName, uniqueKey } = integration;
      const label = displayName && displayName !== uniqueKey ? `${displayName} (${uniqueKey})` : uniqueKey;
      const listed = prefixed ? { ...action, name, description: `${action.description} · ${label}` } : action;
      byName.set(name, { listed, action, integration: uniqueKey, label });
    }
  }
  return byName;
}

/** The end user's connection of the integration (the newest when there are several), if any. */
export async function userConnection(
  clients: GatewayClients,
  server: McpServerGrant,
  integration: string,
): Promise<string | undefined> {
  const { connections } = await clients.connection.listConnections({
    endUserId: server.endUser.id,
    providerConfigKey: integration,
    limit: 100,
  });
  let newest: (typeof connections)[number] | undefined;
  for (const c of connections) if (!newest || c.createdAtMs > newest.createdAtMs) newest = c;
  return newest?.connectionId;
}
