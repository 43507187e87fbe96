import type { JsonObject } from "@bufbuild/protobuf";
import { type Script, ScriptKind } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClients } from "../../clients.ts";

/**
 * An action as an MCP tool: its name, its description (its name when it has none), its input schema
 * as the tool's `inputSchema` (an empty object schema when it declares none) and its output schema as
 * `outputSchema` when that is an object schema (MCP's structured content is an object). An action whose
 * input is not an object cannot take a tool call's arguments (an object): it is no tool, as in Nango.
 */
export function actionTool(script: Script): Tool | undefined {
  const d = script.latest?.declaration;
  if (!script.latest || d?.kind !== ScriptKind.ACTION) return undefined;
  const input = d.inputSchema as JsonObject | undefined;
  if (input && input.type !== "object") return undefined;
  const output = d.outputSchema as JsonObject | undefined;
  return {
    name: script.latest.name,
    description: d.description || script.latest.name,
    inputSchema: { ...(input ?? {}), type: "object" },
    ...(output?.type === "object" ? { outputSchema: { ...output, type: "object" } } : {}),
  } as Tool;
}

/** An integration's tools by name: its deployed actions that are tools (what tools/list answers). */
export async function integrationTools(clients: GatewayClients, providerConfigKey: string): Promise<Map<string, Tool>> {
  const res = await clients.scripts.listScripts({ providerConfigKey });
  const byName = new Map<string, Tool>();
  for (const script of res.scripts) {
    const tool = actionTool(script);
    if (tool) byName.set(tool.name, tool);
  }
  return byName;
}

/** `value` is a JSON object (what MCP's `structuredContent` must be). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
