import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@connectrpc/connect";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { MetricsService } from "@junction/contracts/metrics/v1/metrics_service_pb";
import { h2cTransport } from "@junction/platform/h2c";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { freePort } from "@junction/platform/testing/free-port";
import {
  type DistributedJunction,
  startDistributedJunction,
  startGatewayProcess,
} from "../support/distributed-junction.ts";
import type { JunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

// The overview in the distributed topology: the gateway samples its own counters (the proxy engine runs
// there) and each service process's over MetricsService (a refresh is counted in the connection process).

const SECRET = "jct_sk_overview_distributed_0123456789";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
let junction: DistributedJunction;
let gatewayB: JunctionProcess | undefined;
const data = tempDir();

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${junction.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};
const proxy = (connection: string, gateway = junction.gatewayUrl) =>
  fetch(`${gateway}/proxy/echo/x`, {
    headers: { authorization: `Bearer ${SECRET}`, "provider-config-key": "cal", "connection-id": connection },
  });

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream({ clients: [{ clientId: "cid", clientSecret: "client-secret-1" }] });
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    env: { JUNCTION_LOG_LEVEL: "warn", JUNCTION_OVERVIEW_SAMPLE_MS: "1000" },
  });
  await api("POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    credentials: { type: "OAUTH2", client_id: "cid", client_secret: "client-secret-1" },
    upstream_overrides: { base_url: fake.url, token_url: fake.endpoints.tokenUrl },
  });
  const tokens = fake.issueTokens({ email: "alice@example.com", clientId: "cid", scopes: ["x"] });
  for (const [id, credentials] of [
    ["alice", { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 }],
    ["broken", { type: "OAUTH2", access_token: "old", refresh_token: "refused", expires_at: Date.now() - 60_000 }],
  ] as const) {
    expect(
      (await api("POST", "/connections", { provider_config_key: "cal", connection_id: id, credentials })).status,
    ).toBeLessThan(300);
  }
  await waitFor("the proxy service to answer", async () => (await proxy("alice")).status !== 503, 30_000, 50);
}, 90_000);

afterAll(async () => {
  await gatewayB?.stop();
  await junction?.stop();
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

describe("the overview in the distributed topology", () => {
  test("each service process answers MetricsService with its own counters", async () => {
    const client = createClient(MetricsService, h2cTransport(junction.serviceUrls.connection ?? ""));
    const res = await client.sampleMetrics({ names: ["junction_token_refreshes_total", "no_such_metric"] });
    expect(res.metrics.map((m) => m.name)).toEqual(["junction_token_refreshes_total"]);
  });

  test("proxy calls from the gateway's registry and a refresh failure from the connection process", async () => {
    // The calls made while waiting for the proxy service, once sampled: the count the test's calls add to.
    const totals = async () => (await api("GET", "/overview?period=hour")).body.data.totals;
    const before = await waitFor("the readiness calls to be sampled", async () => {
      const n = (await totals()).proxy_calls["2xx"];
      return n >= 1 ? n : undefined;
    });
    for (let i = 0; i < 3; i++) expect((await proxy("alice")).status).toBe(200);
    expect((await proxy("broken")).status).toBeGreaterThan(399);
    const o = await waitFor(
      "the overview to show both processes' counts",
      async () => {
        const { body } = await api("GET", "/overview?period=hour");
        const t = body.data.totals;
        return t.proxy_calls["2xx"] >= before + 3 && t.refresh_failures >= 1 ? body.data : undefined;
      },
      30_000,
      100,
    );
    expect(o.totals.proxy_calls["2xx"]).toBe(before + 3);
    expect(o.totals.refresh_failures).toBe(1);
    expect(o.trouble.connections).toEqual([
      expect.objectContaining({ provider_config_key: "cal", connection_id: "broken", refresh_failures: 1 }),
    ]);
    expect(o.trouble.unavailable).toEqual(["scripts"]);
  });

  test("two gateways on one gateway.sqlite: each counts its own calls, the services' series once", async () => {
    const port = String(await freePort());
    gatewayB = await startGatewayProcess(junction, "gateway-b", port);
    const urlB = `http://127.0.0.1:${port}`;
    const totals = async () => (await api("GET", "/overview?period=hour")).body.data.totals;
    // B's first reading (its baseline) is taken before it says it listens; both read the connection process.
    // A connection of its own: a refresh that failed is not tried again at once.
    const credentials = { type: "OAUTH2", access_token: "old", refresh_token: "refused", expires_at: Date.now() - 1 };
    const created = await api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "broken-b",
      credentials,
    });
    expect(created.status).toBeLessThan(300);
    const before = await totals();
    expect((await proxy("broken-b", urlB)).status).toBeGreaterThan(399);
    expect((await proxy("alice", urlB)).status).toBe(200);
    expect((await proxy("alice")).status).toBe(200);
    // Both gateways read the connection process after the refresh failed once their calls are counted.
    const after = await waitFor(
      "both gateways' calls and the refresh failure to be sampled",
      async () => {
        const t = await totals();
        return t.proxy_calls["2xx"] >= before.proxy_calls["2xx"] + 2 && t.refresh_failures > before.refresh_failures
          ? t
          : undefined;
      },
      30_000,
      100,
    );
    expect(after.proxy_calls["2xx"]).toBe(before.proxy_calls["2xx"] + 2);
    expect(after.refresh_failures).toBe(before.refresh_failures + 1);
  });
});
