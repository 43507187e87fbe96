import { RunCallerKind } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError, JunctionError, readTextLimited } from "@junction/platform";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { errorResponse } from "../../http/error-response.ts";
import { json } from "../../http/json.ts";
import { parseWith } from "../../http/read-json.ts";
import { dataOf } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { keyCaller } from "../scripts/run-caller.ts";
import { integrationTools } from "./action-tool.ts";
import { mcpToolsServer } from "./mcp-tools-server.ts";

/** A tool call's arguments are an action's input: the bound of POST /action/trigger's body. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Nango's header rules (the characters its ids may hold). */
const mcpHeaders = z
  .object({
    "connection-id": z
      .string()
      .regex(/^[a-zA-Z0-9,.;:=+~[\]|@${}"'\\/_ -]+$/)
      .max(255)
      .describe("The connection whose actions are the tools."),
    "provider-config-key": z
      .string()
      .regex(/^[a-zA-Z0-9~:.@ _-]+$/)
      .max(255)
      .describe("The connection's integration."),
  })
  .strict();

const jsonRpcAnswer = z
  .object({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number()]).nullable() })
  .catchall(z.unknown())
  .describe("A JSON-RPC 2.0 answer (`result` or `error`); with several requests, an array of them.");

/** A JSON-RPC error answered before the MCP server sees the message (nothing runs). */
export const rpcError = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });

/**
 * POST /mcp: an MCP server over Streamable HTTP, stateless (a server and a transport per request, as
 * Nango serves it), whose tools are the actions of the `provider-config-key` header's integration run
 * on the `connection-id` header's connection (mcpToolsServer). GET /mcp answers 405 with Nango's
 * JSON-RPC error: there is no server-sent stream to open.
 */
export function mcpRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/integrations/:key/tools",
      handler: async ({ clients, params }) => {
        const key = params.key as string;
        // An unknown integration is 404 unknown_provider_config, not an empty list.
        await clients.connection.getIntegration({ uniqueKey: key });
        return json({ data: [...(await integrationTools(clients, key)).values()] });
      },
      doc: {
        summary: "List an integration's MCP tools",
        description:
          "The tools POST /mcp's `tools/list` answers for this integration: each enabled action with an object input, with `name`, `description`, `inputSchema` and `outputSchema` where declared.",
        tags: ["MCP"],
        params: { key: "The integration's id." },
        responses: { 200: dataOf(z.array(z.object({ name: z.string() }).loose())) },
        errors: ["unknown_provider_config"],
      },
    },
    {
      method: "POST",
      pattern: "/mcp",
      handler: serveMcp,
      doc: {
        summary: "MCP server of a connection's actions",
        description:
          "Model Context Protocol over Streamable HTTP (stateless, JSON answers): `tools/list` answers the integration's actions with their input and output schemas, `tools/call` runs one on the connection as POST /action/trigger does and answers its output as text and `structuredContent`; a failure of the action is a tool result with `isError`. Protocol errors (malformed JSON-RPC, a batch, an unknown method) are JSON-RPC errors.",
        tags: ["MCP"],
        headers: mcpHeaders,
        rawBody: "A JSON-RPC 2.0 request or notification of the Model Context Protocol.",
        responses: { 200: jsonRpcAnswer, 202: { description: "A notification was accepted." } },
        errors: ["invalid_headers", "unknown_connection"],
        errorStatus: { unknown_connection: 400 },
      },
    },
    {
      method: "GET",
      pattern: "/mcp",
      handler: async () => rpcError(405, -32000, "Method not allowed."),
      doc: {
        summary: "MCP server-sent stream (not offered)",
        description: "405 with a JSON-RPC error, as Nango answers: the server is stateless and never sends first.",
        tags: ["MCP"],
        responses: { 405: { description: "A JSON-RPC error.", contentType: "application/json" } },
        errors: [],
      },
    },
  ];
}

async function serveMcp(ctx: RouteContext): Promise<Response> {
  const { req, clients } = ctx;
  const headers = parseWith(
    mcpHeaders,
    {
      "connection-id": req.headers.get("connection-id"),
      "provider-config-key": req.headers.get("provider-config-key"),
    },
    "invalid_headers",
  );
  const target = { connectionId: headers["connection-id"], providerConfigKey: headers["provider-config-key"] };
  try {
    await clients.connection.getConnection(target);
  } catch (err) {
    const domain = err instanceof JunctionError ? err : fromConnectError(err);
    if (domain.code !== "unknown_connection" && domain.code !== "unknown_provider_config") throw err;
    return errorResponse(
      400,
      "unknown_connection",
      "Provided connection-id and provider-config-key do not match a valid connection.",
    );
  }
  const body = await readMessage(req);
  if (body instanceof Response) return body;
  const caller = keyCaller(ctx, RunCallerKind.MCP_CLIENT);
  const server = mcpToolsServer(clients, { ...target, caller }, ctx.logger);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req, { parsedBody: body });
  } finally {
    void server.close();
  }
}

/**
 * The body as JSON, or the JSON-RPC error that refuses it: over MAX_BODY_BYTES, not JSON, or a batch
 * (the protocol has had none since its 2025-06-18 version).
 */
export async function readMessage(req: Request): Promise<unknown> {
  const tooLarge = new Error("too large");
  let text: string;
  try {
    if (Number(req.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) throw tooLarge;
    text = await readTextLimited(req.body, MAX_BODY_BYTES, () => tooLarge);
  } catch (err) {
    if (err !== tooLarge) throw err;
    return rpcError(413, -32600, `Invalid Request: the body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, "Parse error: the body is not JSON.");
  }
  if (Array.isArray(message)) return rpcError(400, -32600, "Invalid Request: batches are not supported.");
  return message;
}
