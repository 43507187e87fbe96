import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { freePort } from "@junction/platform/testing/free-port";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type DistributedJunction,
  gatewayApi,
  scriptsServiceAnswers,
  startDistributedJunction,
  startGatewayProcess,
} from "../support/distributed-junction.ts";
import type { JunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { authorizeOverHttp, initializeRequest, MemoryOAuthProvider, UNHEARD_REDIRECT } from "./mcp-auth-kit.ts";

// The distributed gateway keeps MCP URLs, registered clients and tokens in gateway.sqlite (or MongoDB),
// not in its memory: an end user's agent stays authorized across a gateway restart, and a second
// gateway process on the same data honours (and spends once) what the first issued.
setDefaultTimeout(60_000);

const SECRET = "jct_sk_mcp_auth_distributed_0123456789";
const CAL = "cal";
const WHOAMI = `import { createAction } from "nango";
export default createAction({
  exec: async (nango) => ({ connection: nango.connectionId }),
});
`;
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let junction: DistributedJunction;
const extra: JunctionProcess[] = [];
const data = tempDir();
const api = gatewayApi(() => junction.gatewayUrl, SECRET);

beforeAll(async () => {
  nats = await startNatsServer();
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook", "scripts"],
    env: { JUNCTION_LOG_LEVEL: "warn", JUNCTION_SCRIPTS_POOL_SIZE: "1" },
    ready: scriptsServiceAnswers(SECRET),
    startTimeoutMs: 60_000,
  });
  expect((await api("POST", "/integrations", { unique_key: CAL, provider: "google-calendar" })).status).toBeLessThan(
    300,
  );
  expect((await api("POST", "/scripts", { provider_config_key: CAL, name: "whoami", source: WHOAMI })).status).toBe(
    201,
  );
  const connection = await api("POST", "/connections", {
    provider_config_key: CAL,
    connection_id: "alice-cal",
    credentials: { type: "OAUTH2", access_token: "alice-token", expires_at: new Date(Date.now() + 3_600_000) },
    end_user: { id: "u-alice" },
  });
  expect(connection.status).toBeLessThan(300);
}, 120_000);

afterAll(async () => {
  for (const p of extra) await p.stop();
  await junction?.stop();
  await nats?.stop();
  data.remove();
});

/** Starts `junction serve gateway` with the topology's environment on `port`; resolves once healthy. */
async function startGateway(name: string, port: string): Promise<JunctionProcess> {
  const proc = await startGatewayProcess(junction, name, port);
  extra.push(proc);
  return proc;
}

/** fetch that sends requests for the public base URL (gateway A's) to `url` instead. */
const via = (url: string) => (input: string | URL | Request, init?: RequestInit) =>
  fetch(String(input instanceof Request ? input.url : input).replace(junction.env.JUNCTION_BASE_URL ?? "", url), init);

async function issueMcpUrl(): Promise<{ id: string; url: string }> {
  const issued = await api("POST", "/mcp/servers", { end_user: { id: "u-alice" }, allowed_integrations: [CAL] });
  expect(issued.status).toBe(201);
  return issued.body.data;
}

/** An MCP client session on `mcpUrl` with the provider's saved tokens, its requests sent to `target`. */
async function mcpClient(mcpUrl: string, provider: MemoryOAuthProvider, target: string) {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: via(target) });
  await client.connect(transport);
  return client;
}

const refresh = (target: string, provider: MemoryOAuthProvider, refreshToken: string) =>
  via(target)(`${junction.env.JUNCTION_BASE_URL}/mcp/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: provider.client?.client_id ?? "",
    }),
  });

describe("MCP front door in the distributed topology", () => {
  test("an MCP URL, its registered client and its tokens outlive a restart of the gateway process", async () => {
    const mcp = await issueMcpUrl();
    const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
    const tokens = await authorizeOverHttp(mcp.url, provider);
    const before = await mcpClient(mcp.url, provider, junction.gatewayUrl);
    expect((await before.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
    await before.close();

    const gateway = junction.procs.find((p) => p.name === "gateway");
    if (!gateway) throw new Error("no gateway process");
    await gateway.stop();
    const port = new URL(junction.gatewayUrl).port;
    await startGateway("gateway-restarted", port);

    // The same tokens, no new authorization: the client lists and calls tools as before.
    provider.authorizationUrl = undefined;
    const after = await mcpClient(mcp.url, provider, junction.gatewayUrl);
    expect((await after.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
    const result = (await after.callTool({ name: "whoami" })) as { content: { text: string }[]; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0]?.text ?? "")).toEqual({ connection: "alice-cal" });
    await after.close();
    expect(provider.authorizationUrl).toBeUndefined();
    expect(provider.saved?.access_token).toBe(tokens.access_token);
    expect((await api("GET", `/mcp/servers/${mcp.id}`)).body.data.end_user.id).toBe("u-alice");
    // The registered client and the refresh token are known to the new process too.
    expect((await refresh(junction.gatewayUrl, provider, tokens.refresh_token ?? "")).status).toBe(200);
  });

  test("two gateway processes share the grants: a token of one works on the other, a refresh token is spent once", async () => {
    const portB = String(await freePort());
    const urlB = `http://127.0.0.1:${portB}`;
    await startGateway("gateway-b", portB);
    const mcp = await issueMcpUrl();
    const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
    const tokens = await authorizeOverHttp(mcp.url, provider, via(junction.gatewayUrl));
    const onB = await mcpClient(mcp.url, provider, urlB);
    expect((await onB.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
    await onB.close();

    // Redeemed on both processes at once: exactly one rotation succeeds.
    const answers = await Promise.all([
      refresh(junction.gatewayUrl, provider, tokens.refresh_token ?? ""),
      refresh(urlB, provider, tokens.refresh_token ?? ""),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);

    // Revoked through one process: refused by the other at once.
    expect((await api("DELETE", `/mcp/servers/${mcp.id}`)).status).toBe(200);
    expect((await via(urlB)(mcp.url, initializeRequest(tokens.access_token))).status).toBe(401);
  });
});
