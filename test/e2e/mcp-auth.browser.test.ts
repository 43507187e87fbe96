import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { launchChromium } from "./dashboard-browser-kit.ts";
import { issueMcpUrl, MemoryOAuthProvider, startCallbackListener } from "./mcp-auth-kit.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// The MCP front door, whole: an end user's MCP client (the official SDK's Client, transport and OAuth
// helpers) meets its MCP URL's 401, discovers Junction as the authorization server, registers, sends
// the user to consent in the Connect UI (Chromium), exchanges the code and calls tools on that end
// user's connection only.
setDefaultTimeout(90_000);

const world = useScriptsWorld();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const action = (body: string, extra = "") =>
  `import { createAction } from "nango";\nexport default createAction({${extra}\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;

describe("MCP front door: OAuth 2.1 for an end user's MCP client", () => {
  test("the SDK client authorizes through the consent page in Chromium and runs tools on that user's connection only", async () => {
    const w = await world();
    await w.connect("alice-cal", "alice@example.com", "u-alice");
    await w.connect("bob-cal", "bob@example.com", "u-bob");
    const INPUT = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    await w.deploy(
      "create-event",
      action(
        "return { title: input.title, connection: nango.connectionId };",
        `\n  description: "Creates an event", input: ${JSON.stringify(INPUT)},`,
      ),
    );
    const mcp = await issueMcpUrl(w, "u-alice", [CAL]);
    expect(mcp.url).toBe(`${w.j.baseUrl}/mcp/u/${mcp.id}`);

    const callback = startCallbackListener();
    cleanups.push(callback.stop);
    const provider = new MemoryOAuthProvider(callback.url);
    const first = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider });
    const client = new Client({ name: "e2e-agent", version: "1.0.0" });
    // No token yet: the 401 starts discovery, registration and the authorization redirect.
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^mcpc_/);
    const authorizationUrl = provider.authorizationUrl;
    if (!authorizationUrl) throw new Error("the SDK asked for no authorization");
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${w.j.baseUrl}/mcp/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("resource")).toBe(mcp.url);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const { page } = browser;
    await page.goto(authorizationUrl.href);
    await page.waitForSelector("#consent");
    expect(await page.textContent("#client-name")).toBe("Junction e2e agent");
    expect(await page.textContent("#end-user")).toBe("User u-alice");
    expect(await page.textContent("#integrations")).toBe("Google Calendar");
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.click("#allow")]);
    const back = callback.received.at(-1);
    expect(back?.searchParams.get("state")).toBe("state-123");
    expect(back?.searchParams.get("iss")).toBe(w.j.baseUrl);
    const code = back?.searchParams.get("code");
    if (!code) throw new Error(`no code: ${back}`);
    await first.finishAuth(code);
    expect(provider.saved?.access_token).toMatch(/^jct_mcp_at_/);
    expect(provider.saved?.refresh_token).toMatch(/^jct_mcp_rt_/);

    const connected = new Client({ name: "e2e-agent", version: "1.0.0" });
    await connected.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
    const { tools } = await connected.listTools();
    expect(tools.map((t) => t.name)).toEqual(["create-event"]);
    const result = await connected.callTool({ name: "create-event", arguments: { title: "Standup" } });
    expect(result.isError).toBeFalsy();
    // Alice's connection, never Bob's.
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? "")).toEqual({
      title: "Standup",
      connection: "alice-cal",
    });
    await connected.close();
  });
});
