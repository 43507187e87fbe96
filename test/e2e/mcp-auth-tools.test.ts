import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { authorizeOverHttp, issueMcpUrl, MemoryOAuthProvider, UNHEARD_REDIRECT } from "./mcp-auth-kit.ts";
import { CAL, type ScriptsWorld, useScriptsWorld } from "./scripts-kit.ts";

// An end user's MCP URL covering several integrations: tool names that tell them apart, calls on the
// user's own connection, and a connect link when the user has not connected the tool's integration
// (as a URL-mode elicitation to a client that takes one, as the tool's text to one that does not).
setDefaultTimeout(60_000);

const world = useScriptsWorld();
const OTHER = "other";

const action = (body: string) =>
  `import { createAction } from "nango";\nexport default createAction({\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;

async function twoIntegrations(w: ScriptsWorld) {
  const created = await w.api("POST", "/integrations", { unique_key: OTHER, provider: "google-calendar" });
  expect(created.status).toBeLessThan(300);
  await w.deploy("whoami", action("return { connection: nango.connectionId };"));
  const other = await w.api("POST", "/scripts", {
    provider_config_key: OTHER,
    name: "whoami",
    source: action("return { connection: nango.connectionId };"),
  });
  expect(other.status).toBe(201);
}

async function connectedClient(mcpUrl: string, options: { elicitation?: boolean } = {}) {
  const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
  await authorizeOverHttp(mcpUrl, provider);
  const client = new Client(
    { name: "e2e-agent", version: "1.0.0" },
    options.elicitation ? { capabilities: { elicitation: { url: {} } } } : {},
  );
  const elicited: ElicitRequest["params"][] = [];
  if (options.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      return { action: "accept" };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return { client, elicited, provider };
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? "") as string;

/** The connect session a link carries, as the Connect UI reads it. */
async function sessionOfLink(w: ScriptsWorld, link: string) {
  const token = new URL(link).searchParams.get("session_token") ?? "";
  return w.j.clients.connection.getConnectSession({ token });
}

describe("MCP front door: an end user's tools", () => {
  test("a URL over several integrations names tools <integration>__<action> and runs each on the user's connection", async () => {
    const w = await world();
    await twoIntegrations(w);
    await w.connect("alice-cal", "alice@example.com", "u-alice");
    await w.connect("bob-cal", "bob@example.com", "u-bob");
    const mcp = await issueMcpUrl(w, "u-alice");
    const { client, provider } = await connectedClient(mcp.url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([`${CAL}__whoami`, `${OTHER}__whoami`]);
    const result = await client.callTool({ name: `${CAL}__whoami` });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ connection: "alice-cal" });
    // The run names the MCP client (as it registered) and the end user, not a secret key.
    const [run] = await w.runs({ trigger: "action" });
    expect(run.caller).toEqual({
      kind: "mcp_client",
      name: "Junction e2e agent",
      key_id: null,
      client_id: provider.client?.client_id,
      end_user_id: "u-alice",
    });
    // The plain action name is no tool of a URL over several integrations.
    const plain = await client.callTool({ name: "whoami" });
    expect(plain.isError).toBe(true);
    expect(JSON.parse(textOf(plain)).error.code).toBe("unknown_tool");
    await client.close();
  });

  test("no connection yet: a client without URL elicitation gets the connect link as the tool's text", async () => {
    const w = await world();
    await twoIntegrations(w);
    await w.connect("alice-cal", "alice@example.com", "u-alice");
    const mcp = await issueMcpUrl(w, "u-alice");
    const { client } = await connectedClient(mcp.url);
    const result = await client.callTool({ name: `${OTHER}__whoami` });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain(`needs a connected Google Calendar (${OTHER}) account`);
    const link = /(http\S+session_token=\S+)/.exec(text)?.[1] ?? "";
    expect(link.startsWith(`${w.j.baseUrl}/connect/?session_token=`)).toBe(true);
    const session = await sessionOfLink(w, link);
    expect(session.integrations.map((i) => i.uniqueKey)).toEqual([OTHER]);
    expect((session.endUser as { id?: string } | undefined)?.id).toBe("u-alice");
    // Nothing ran.
    expect(await w.runs({ trigger: "action" })).toEqual([]);
    await client.close();
  });

  test("no connection yet: a client that declared URL elicitation is asked to open the connect link", async () => {
    const w = await world();
    await twoIntegrations(w);
    const mcp = await issueMcpUrl(w, "u-alice", [CAL]);
    const { client, elicited } = await connectedClient(mcp.url, { elicitation: true });
    const result = await client.callTool({ name: "whoami" });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`sent to connect their Google Calendar (${CAL}) account`);
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatchObject({
      mode: "url",
      message: `Connect your Google Calendar (${CAL}) account to use whoami.`,
    });
    const session = await sessionOfLink(w, (elicited[0] as { url: string }).url);
    expect(session.integrations.map((i) => i.uniqueKey)).toEqual([CAL]);
    expect(await w.runs({ trigger: "action" })).toEqual([]);
    await client.close();
  });
});
