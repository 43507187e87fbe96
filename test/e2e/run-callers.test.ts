import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { waitFor } from "../support/wait-for.ts";
import { CAL, type ScriptsWorld, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Who called an action: each path that runs one records its caller with the run (the secret key's
// name, never the key; an MCP client), and the run API answers it with the run's input and output.
// Runs start sandbox processes: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

const ECHO = `import { createAction } from "nango";\nexport default createAction({\n  input: { type: "object" },\n  exec: async (nango, input) => ({ echoed: input }),\n});\n`;

/** A secret key named `name`, limited to `scopes`: its plaintext and id. */
async function namedKey(w: ScriptsWorld, name: string, scopes: string[]) {
  const created = await w.api("POST", "/secret-keys", { name, scopes });
  expect(created.status).toBe(201);
  return { key: created.body.data.secret_key as string, id: created.body.data.id as string };
}

describe("an action run records its caller", () => {
  test("POST /action/trigger with a named scoped key: the run names the key, with its input, output and duration", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("echo", ECHO);
    const bot = await namedKey(w, "ci-bot", ["environment:actions:execute"]);
    const headers = { authorization: `Bearer ${bot.key}`, "connection-id": "alice", "provider-config-key": CAL };
    const res = await w.api("POST", "/action/trigger", { action_name: "echo", input: { title: "Standup" } }, headers);
    expect(res.status).toBe(200);

    const [listed] = await w.runs({ trigger: "action" });
    const caller = { kind: "secret_key", name: "ci-bot", key_id: bot.id, client_id: null, end_user_id: null };
    expect(listed.caller).toEqual(caller);
    const run = (await w.api("GET", `/scripts/runs/${listed.id}`)).body.data;
    expect(run).toMatchObject({ caller, input: { title: "Standup" }, output: { echoed: { title: "Standup" } } });
    expect(run.duration_ms).toBeGreaterThan(0);
    expect(JSON.stringify(run)).not.toContain(bot.key);

    // Async: the queued run keeps the caller through its attempt.
    const queued = await w.api(
      "POST",
      "/action/trigger",
      { action_name: "echo", input: { n: 1 } },
      {
        ...headers,
        "x-async": "true",
      },
    );
    expect(queued.status).toBe(202);
    const ended = await waitFor("the async run's end", async () => {
      const got = (await w.api("GET", `/scripts/runs/${queued.body.id}`)).body.data;
      return got.status === "running" ? null : got;
    });
    expect(ended).toMatchObject({ status: "succeeded", caller, input: { n: 1 }, output: { echoed: { n: 1 } } });

    // The operations log's entry for the run names the caller.
    const op = await waitFor("the action run's operation", async () => {
      const ops = (await w.api("GET", `/logs/operations?kind=action_run`)).body.data as any[];
      return ops.find((o) => o.tags.includes(`run:${listed.id}`));
    });
    const detail = (await w.api("GET", `/logs/operations/${op.id}`)).body.data;
    expect(detail.messages[0].text).toBe('called by secret key "ci-bot"');
  });

  test("an MCP tools/call (the official SDK client) with a named key records an mcp_client caller", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("echo", ECHO);
    const agent = await namedKey(w, "support-agent", ["environment:mcp"]);
    const transport = new StreamableHTTPClientTransport(new URL(`${w.j.url}/mcp`), {
      requestInit: {
        headers: { Authorization: `Bearer ${agent.key}`, "connection-id": "alice", "provider-config-key": CAL },
      },
    });
    const client = new Client({ name: "e2e-agent", version: "1.0.0" });
    await client.connect(transport);
    const result = await client.callTool({ name: "echo", arguments: { q: "hi" } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const [listed] = await w.runs({ trigger: "action" });
    expect(listed.caller).toEqual({
      kind: "mcp_client",
      name: "support-agent",
      key_id: agent.id,
      client_id: null,
      end_user_id: null,
    });
    expect((await w.api("GET", `/scripts/runs/${listed.id}`)).body.data.input).toEqual({ q: "hi" });
  });

  test("runs other than actions have no caller", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("daily", syncSource("await nango.log('ran');"));
    const res = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, syncs: ["daily"] });
    expect(res.status).toBeLessThan(300);
    const [run] = await w.finishedRuns({ script: "daily" }, 1);
    expect(run.caller).toBeNull();
    expect(run).not.toHaveProperty("input");
  });
});
