import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { CAL, type ScriptsWorld, useScriptsWorld } from "./scripts-kit.ts";

// POST /mcp: the official MCP SDK's client against an embedded Junction whose tools are the
// integration's actions, run on the headers' connection. Runs start sandbox processes.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

const actionSource = (body: string, extra = "") =>
  `import { createAction, ActionError } from "nango";\nexport default createAction({${extra ? `\n  ${extra},` : ""}\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;

async function mcpClient(w: ScriptsWorld, connectionId: string, key = TEST_SECRET_KEY, integration = CAL) {
  const transport = new StreamableHTTPClientTransport(new URL(`${w.j.url}/mcp`), {
    requestInit: {
      headers: { Authorization: `Bearer ${key}`, "connection-id": connectionId, "provider-config-key": integration },
    },
  });
  const client = new Client({ name: "junction-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A raw POST /mcp (for what no SDK client would send). */
async function rawMcp(w: ScriptsWorld, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${w.j.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TEST_SECRET_KEY}`,
      "connection-id": "alice",
      "provider-config-key": CAL,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const INPUT = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
const OUTPUT = { type: "object", properties: { title: { type: "string" }, connection: { type: "string" } } };

async function deployActions(w: ScriptsWorld) {
  await w.deploy(
    "create-event",
    actionSource(
      "return { title: input.title, connection: nango.connectionId };",
      `description: "Creates an event", input: ${JSON.stringify(INPUT)}, output: ${JSON.stringify(OUTPUT)}`,
    ),
  );
  await w.deploy("ping", actionSource("return [input === undefined ? 'no input' : 'input'];"));
  await w.deploy("refuse", actionSource(`throw new ActionError({ reason: "no calendar" });`));
}

describe("MCP: POST /mcp", () => {
  test("lists the integration's actions as tools and runs one on the connection, recorded as a run", async () => {
    const w = await world();
    await w.connect("alice");
    await deployActions(w);
    const client = await mcpClient(w, "alice");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["create-event", "ping", "refuse"]);
    const create = tools.find((t) => t.name === "create-event");
    expect(create).toMatchObject({ description: "Creates an event", inputSchema: INPUT, outputSchema: OUTPUT });
    expect(tools.find((t) => t.name === "ping")).toMatchObject({
      description: "ping",
      inputSchema: { type: "object" },
    });
    expect(tools.find((t) => t.name === "ping")?.outputSchema).toBeUndefined();
    // GET /integrations/{key}/tools (what the dashboard shows) answers the same list as tools/list.
    const listed = await w.api("GET", `/integrations/${CAL}/tools`);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(listed.body.data.sort(byName)).toEqual([...tools].sort(byName));
    const unknown = await w.api("GET", "/integrations/nothing/tools");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "unknown_provider_config"]);

    const result = await client.callTool({ name: "create-event", arguments: { title: "Standup" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ title: "Standup", connection: "alice" });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "Standup", connection: "alice" }, null, 2) },
    ]);
    const [run] = await w.runs({ trigger: "action" });
    expect(run).toMatchObject({ script_name: "create-event", connection_id: "alice", status: "succeeded" });

    // No output schema: text only.
    const ping = await client.callTool({ name: "ping" });
    expect(ping).toEqual({ content: [{ type: "text", text: JSON.stringify(["no input"], null, 2) }] });
    await client.close();
  });

  test("the action's failure, bad arguments and an unknown tool are tool errors; nothing else runs", async () => {
    const w = await world();
    await w.connect("alice");
    await deployActions(w);
    const client = await mcpClient(w, "alice");
    const refused = await client.callTool({ name: "refuse" });
    expect(refused.isError).toBe(true);
    const error = JSON.parse((refused.content as any)[0].text).error;
    expect(error).toMatchObject({ code: "action_script_runtime_error", payload: { reason: "no calendar" } });
    expect(error.run_id).toMatch(/^run_/);

    const bad = await client.callTool({ name: "create-event", arguments: { title: 3 } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content as any)[0].text).error.code).toBe("invalid_action_input");

    const unknown = await client.callTool({ name: "no-such-tool" });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse((unknown.content as any)[0].text).error.code).toBe("unknown_tool");
    // Only the failing action ran.
    expect((await w.runs({ trigger: "action" })).map((r) => r.script_name)).toEqual(["refuse"]);
    await client.close();
  });

  test("a tool of another integration is unknown on this one, and is not run", async () => {
    const w = await world();
    await w.connect("alice");
    await deployActions(w);
    const other = await w.api("POST", "/integrations", { unique_key: "other", provider: "google-calendar" });
    expect(other.status).toBeLessThan(300);
    const deployed = await w.api("POST", "/scripts", {
      provider_config_key: "other",
      name: "wipe",
      source: actionSource("return 1;"),
    });
    expect(deployed.status).toBe(201);
    const client = await mcpClient(w, "alice");
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("wipe");
    const res = await client.callTool({ name: "wipe" });
    expect(res.isError).toBe(true);
    expect(JSON.parse((res.content as any)[0].text).error.code).toBe("unknown_tool");
    expect(await w.runs({ trigger: "action" })).toEqual([]);
    await client.close();
  });

  test("bad headers, an unknown connection and GET answer Nango's errors", async () => {
    const w = await world();
    await w.connect("alice");
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const missing = await rawMcp(w, init, { "connection-id": "" });
    expect([missing.status, missing.body.error.code]).toEqual([400, "invalid_headers"]);
    const malformed = await rawMcp(w, init, { "provider-config-key": "cal/../x" });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, "invalid_headers"]);
    const unknown = await rawMcp(w, init, { "connection-id": "bob" });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, "unknown_connection"]);
    const noKey = await rawMcp(w, init, { authorization: "Bearer nope" });
    expect(noKey.status).toBe(401);
    const ok = await rawMcp(w, init);
    expect(ok.status).toBe(200);
    expect(ok.body.result.capabilities).toEqual({ tools: {} });

    const get = await fetch(`${w.j.url}/mcp`, { headers: { Authorization: `Bearer ${TEST_SECRET_KEY}` } });
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed." },
      id: null,
    });
  });

  test("malformed JSON-RPC, a batch, an unknown method and huge arguments are protocol errors; nothing runs", async () => {
    const w = await world();
    await w.connect("alice");
    await deployActions(w);
    const notJson = await rawMcp(w, "{not json");
    expect([notJson.status, notJson.body.error.code]).toEqual([400, -32700]);
    const notRpc = await rawMcp(w, JSON.stringify({ hello: "world" }));
    expect([notRpc.status, notRpc.body.error.code]).toEqual([400, -32700]);
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "create-event", arguments: { title: "x" } },
    });
    const batch = await rawMcp(w, JSON.stringify([call(1), call(2)]));
    expect([batch.status, batch.body.error.code]).toEqual([400, -32600]);
    const method = await rawMcp(w, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/destroy" }));
    expect([method.status, method.body.error.code]).toEqual([200, -32601]);
    const huge = { ...call(4), params: { name: "create-event", arguments: { title: "x".repeat(3 * 1024 * 1024) } } };
    const big = await rawMcp(w, JSON.stringify(huge));
    expect([big.status, big.body.error.code]).toEqual([413, -32600]);
    expect(await w.runs({ trigger: "action" })).toEqual([]);
  });
});
