import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@connectrpc/connect";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { ChannelService, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { h2cTransport } from "@junction/platform/h2c";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import type { JunctionProcess } from "../support/junction-process.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

/** The proxy across processes: gateway → proxy service → connection service over h2c, channel events over NATS. */
const SECRET = "jct_sk_proxy_distributed_0123456789abc";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";
let channelUrl = "";

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream({ requireAuthOnEcho: true });
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    env: { JUNCTION_LOG_LEVEL: "warn", JUNCTION_PROXY_RETRY_BASE_DELAY_MS: "5" },
  });
  gatewayUrl = junction.gatewayUrl;
  channelUrl = junction.serviceUrls.channel ?? "";
  procs.push(...junction.procs);
  const api = (path: string, body: unknown) =>
    fetch(`${gatewayUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  await api("/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    upstream_overrides: { base_url: fake.url },
  });
  const tokens = fake.issueTokens({ email: "alice@example.com", scopes: ["https://www.googleapis.com/auth/calendar"] });
  await api("/connections", {
    provider_config_key: "cal",
    connection_id: "alice",
    credentials: { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 },
  });
  // The gateway's health covers the connection service only: wait until the proxy process answers too
  // (a cold start on a fresh clone can be slower than the others).
  await waitFor(
    "the proxy service to answer",
    async () => (await proxy("GET", "/echo/ready")).status !== 503,
    30_000,
    50,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

const proxy = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
  fetch(`${gatewayUrl}/proxy${path}`, {
    method,
    headers: {
      authorization: `Bearer ${SECRET}`,
      "provider-config-key": "cal",
      "connection-id": "alice",
      ...init.headers,
    },
    body: init.body,
  });

describe("proxy in the distributed topology", () => {
  test("streams a call through with the connection's token, path unchanged", async () => {
    const res = await proxy("POST", "/echo/calendars/alice%40example.com?q=%2F", { body: "hello" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      path: "/echo/calendars/alice%40example.com",
      query: "q=%2F",
      bodyLength: 5,
    });
  });

  test("retries a flaky upstream", async () => {
    const res = await proxy("GET", "/flaky/2", { headers: { "x-flaky-key": "distributed" } });
    expect(res.status).toBe(200);
  });

  test("an unknown connection is a 404 with its stable code across both hops", async () => {
    const res = await proxy("GET", "/echo/x", { headers: { "connection-id": "nobody" } });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("unknown_connection");
  });

  test("a watch through the proxy reaches the channel service over NATS", async () => {
    const watch = await proxy("POST", "/calendar/v3/calendars/primary/events/watch", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "chan-distributed", type: "web_hook", address: `${gatewayUrl}/webhook/x/cal` }),
    });
    expect(watch.status).toBe(200);
    const channels = createClient(ChannelService, h2cTransport(channelUrl));
    const found = await waitFor(
      "the channel in the registry",
      async () =>
        (await channels.listChannels({ providerConfigKey: "cal" })).channels.find((c) => c.id === "chan-distributed"),
      15_000,
      50,
    );
    expect(found.state).toBe(ChannelState.ACTIVE);
    expect(found.connectionId).toBe("alice");
  });
});
