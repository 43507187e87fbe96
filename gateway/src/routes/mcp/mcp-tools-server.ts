import { fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { type RunCaller, RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError, JunctionError, type Logger } from "@junction/platform";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClients } from "../../clients.ts";
import { actionAnswer } from "../scripts/action-answer.ts";
import { integrationTools, isPlainObject } from "./action-tool.ts";

export interface McpTarget {
  providerConfigKey: string;
  connectionId: string;
  /** Who calls (recorded with the run): the secret key, or an end user's MCP client. */
  caller?: RunCaller | undefined;
}

/** Errors of the caller's call (its arguments, a removed action): the model can correct them. */
const CALLER_CODES = new Set(["invalid_action_input", "unknown_action", "unknown_connection", "invalid_request"]);

/**
 * One request's MCP server (stateless, as Nango serves it): its tools are the integration's deployed
 * actions (actionTool) and a call runs one on the connection through RunAction, the path of
 * POST /action/trigger (its deadline, logs, run record and metrics). An unknown tool, input its
 * schema refuses and the action's own failure are tool errors (`isError`), never protocol errors.
 */
export function mcpToolsServer(clients: GatewayClients, target: McpTarget, logger: Logger): Server {
  const server = new Server({ name: "Junction connection tools", version: "1.0.0" }, { capabilities: { tools: {} } });
  let loaded: Promise<Map<string, Tool>> | undefined;
  const tools = () => {
    loaded ??= integrationTools(clients, target.providerConfigKey);
    return loaded;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...(await tools()).values()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = (await tools()).get(name);
    if (!tool) {
      return toolError({
        code: "unknown_tool",
        message: `Integration "${target.providerConfigKey}" has no tool named "${name}".`,
      });
    }
    const started = performance.now();
    const result = await callAction(clients, target, tool, args);
    logger.info("mcp tool call", {
      providerConfigKey: target.providerConfigKey,
      connectionId: target.connectionId,
      tool: name,
      isError: result.isError === true,
      ms: Math.round(performance.now() - started),
    });
    return result;
  });
  return server;
}

/** Runs the action behind `tool` (its name is the action's) on the target connection, as a tool result. */
export async function callAction(
  clients: GatewayClients,
  target: McpTarget,
  tool: Tool,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  try {
    const { run } = await clients.scripts.runAction({
      ...target,
      actionName: tool.name,
      ...(args === undefined ? {} : { input: fromJson(ValueSchema, args as JsonValue) }),
      async: false,
      maxRetries: 0,
    });
    if (!run) return toolError({ code: "internal_error", message: "The action answered no run." });
    if (run.status !== RunStatus.SUCCEEDED) {
      // The answer POST /action/trigger gives (code, message with the run id, payload).
      const failed = (await actionAnswer(run).json()) as { error: Record<string, unknown> };
      return toolError(failed.error);
    }
    const output = run.output ? toJson(ValueSchema, run.output) : null;
    return {
      content: [{ type: "text", text: JSON.stringify(output, null, 2) }],
      ...(tool.outputSchema && isPlainObject(output) ? { structuredContent: output } : {}),
    };
  } catch (err) {
    const domain = err instanceof JunctionError ? err : fromConnectError(err);
    if (CALLER_CODES.has(domain.code)) {
      return toolError({ code: domain.code, message: domain.message, errors: domain.errors });
    }
    throw err;
  }
}

/** A tool result the model reads as a failure (`isError`), the error as JSON text. */
export function toolError(error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }, null, 2) }] };
}
