import { randomUUID } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { type RunCaller, RunCallerKind, RunCallerSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { Logger } from "@junction/platform";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClients } from "../clients.ts";
import { callAction, toolError } from "../routes/mcp/mcp-tools-server.ts";
import type { McpServerGrant } from "./mcp-auth-store.ts";
import { type UserTool, userConnection, userTools } from "./user-tools.ts";

type SendRequest = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1]["sendRequest"];

/**
 * The MCP server of an end user's MCP URL: the covered integrations' actions (userTools), each run on
 * that end user's own connection. A call for an integration the user has not connected answers a
 * connect link instead: as a URL-mode elicitation when the client declared it can take one, else as
 * the tool's text.
 */
export function userToolsServer(
  clients: GatewayClients,
  grant: McpServerGrant,
  baseUrl: string,
  logger: Logger,
): Server {
  const server = new Server({ name: "Junction", version: "1.0.0" }, { capabilities: { tools: {} } });
  const tools = () => userTools(clients, grant);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...(await tools()).values()].map((t) => t.listed),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = (await tools()).get(name);
    if (!tool) return toolError({ code: "unknown_tool", message: `This MCP URL has no tool named "${name}".` });
    const connectionId = await userConnection(clients, grant, tool.integration);
    if (connectionId === undefined) {
      const urlMode = server.getClientCapabilities()?.elicitation?.url !== undefined;
      return askToConnect(clients, grant, baseUrl, tool, urlMode ? extra.sendRequest : undefined);
    }
    const started = performance.now();
    const caller = clientCaller(extra.authInfo, grant);
    const target = { providerConfigKey: tool.integration, connectionId, caller };
    const result = await callAction(clients, target, tool.action, args);
    logger.info("mcp tool call", {
      mcpServerId: grant.id.slice(0, 12),
      providerConfigKey: tool.integration,
      connectionId,
      tool: name,
      isError: result.isError === true,
      ms: Math.round(performance.now() - started),
    });
    return result;
  });
  return server;
}

/** The MCP client whose access token made this request, for the end user of the MCP URL. */
function clientCaller(authInfo: AuthInfo | undefined, grant: McpServerGrant): RunCaller | undefined {
  if (!authInfo) return undefined;
  const clientName = authInfo.extra?.clientName;
  return create(RunCallerSchema, {
    kind: RunCallerKind.MCP_CLIENT,
    name: typeof clientName === "string" ? clientName : authInfo.clientId,
    clientId: authInfo.clientId,
    endUserId: grant.endUser.id,
  });
}

/** A connect session for the end user, limited to the tool's integration; its link, and what the model should do. */
async function askToConnect(
  clients: GatewayClients,
  grant: McpServerGrant,
  baseUrl: string,
  tool: UserTool,
  sendRequest: SendRequest | undefined,
): Promise<CallToolResult> {
  const endUser: JsonObject = { id: grant.endUser.id };
  if (grant.endUser.email) endUser.email = grant.endUser.email;
  if (grant.endUser.displayName) endUser.display_name = grant.endUser.displayName;
  const session = await clients.connection.createConnectSession({ endUser, allowedIntegrations: [tool.integration] });
  const link = `${baseUrl}/connect/?session_token=${encodeURIComponent(session.token)}`;
  const message = `Connect your ${tool.label} account to use ${tool.listed.name}.`;
  const text = (words: string) => ({ content: [{ type: "text" as const, text: words }] });
  if (sendRequest) {
    const answer = await sendRequest(
      { method: "elicitation/create", params: { mode: "url", message, url: link, elicitationId: randomUUID() } },
      ElicitResultSchema,
    );
    if (answer.action === "accept") {
      return text(
        `The user was sent to connect their ${tool.label} account. Once they have, call ${tool.listed.name} again.`,
      );
    }
    return text(
      `The user did not open the link to connect their ${tool.label} account; ${tool.listed.name} did not run.`,
    );
  }
  return text(
    `${tool.listed.name} needs a connected ${tool.label} account, and the user has none yet. Ask the user to open this link and connect one, then call ${tool.listed.name} again: ${link}`,
  );
}
