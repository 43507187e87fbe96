import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// Secret keys limited to scopes: refused outside them with 403 insufficient_scope naming the scope.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

describe("scoped secret keys", () => {
  test("a key limited to environment:mcp serves MCP and nothing else; the list shows scopes and last use", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy(
      "ping",
      `import { createAction } from "nango";\nexport default createAction({ exec: async () => ({ pong: true }) });\n`,
    );
    const created = await w.api("POST", "/secret-keys", { name: "agent", scopes: ["environment:mcp"] });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "agent", scopes: ["environment:mcp"], last_used_at: null });
    const key = created.body.data.secret_key as string;
    const as = (method: string, path: string, body?: unknown) =>
      w.api(method, path, body, { authorization: `Bearer ${key}` });

    const transport = new StreamableHTTPClientTransport(new URL(`${w.j.url}/mcp`), {
      requestInit: {
        headers: { Authorization: `Bearer ${key}`, "connection-id": "alice", "provider-config-key": CAL },
      },
    });
    const client = new Client({ name: "scoped", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["ping"]);
    expect((await client.callTool({ name: "ping" })).content).toEqual([
      { type: "text", text: JSON.stringify({ pong: true }, null, 2) },
    ]);
    await client.close();

    for (const [method, path, scope] of [
      ["GET", "/connections", "environment:connections:list"],
      ["GET", "/proxy/calendar/v3/users/me/calendarList", "environment:proxy"],
      ["POST", "/secret-keys", "environment:*"],
      ["GET", "/scripts/config", "environment:integrations:list_functions"],
    ] as const) {
      const res = await as(method, path, method === "POST" ? { name: "escalate" } : undefined);
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, "insufficient_scope"]);
      expect(res.body.error.message).toContain(scope);
    }
    // The dashboard can do everything: a scoped key does not open it.
    const login = await fetch(`${w.j.url}/dashboard/login`, {
      method: "POST",
      body: new URLSearchParams({ secret_key: key }),
      redirect: "manual",
    });
    expect([login.status, login.headers.get("set-cookie")]).toEqual([403, null]);
    // The RPC routes are for full-access keys only.
    const rpc = await fetch(`${w.j.url}/rpc/junction.connection.v1.ConnectionService/ListIntegrations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{}",
    });
    expect([rpc.status, (await rpc.json()).code]).toEqual([403, "permission_denied"]);
    // Nothing was created by the refused call.
    const list = (await w.api("GET", "/secret-keys")).body.data as any[];
    expect(list.map((k) => k.name)).not.toContain("escalate");
    const agent = list.find((k) => k.name === "agent");
    expect(agent.scopes).toEqual(["environment:mcp"]);
    expect(Date.parse(agent.last_used_at)).toBeGreaterThan(0);
    // The key without scopes (the test key) keeps full access.
    expect(list.find((k) => k.name !== "agent").scopes).toEqual([]);
  });

  test("a wildcard grants what is under it; a key without the MCP scope is refused at POST /mcp; unknown scopes are refused", async () => {
    const w = await world();
    await w.connect("alice");
    const created = await w.api("POST", "/secret-keys", { scopes: ["environment:connections:*"] });
    const key = created.body.data.secret_key as string;
    const auth = { authorization: `Bearer ${key}` };
    expect((await w.api("GET", "/connections", undefined, auth)).status).toBe(200);
    expect((await w.api("GET", "/connections/alice?provider_config_key=cal", undefined, auth)).status).toBe(200);
    const mcp = await w.api(
      "POST",
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        ...auth,
        "connection-id": "alice",
        "provider-config-key": CAL,
      },
    );
    expect([mcp.status, mcp.body.error.code]).toEqual([403, "insufficient_scope"]);

    const bad = await w.api("POST", "/secret-keys", { scopes: ["everything"] });
    expect([bad.status, bad.body.error.code, bad.body.error.errors[0].path]).toEqual([400, "invalid_body", "scopes.0"]);
  });
});
