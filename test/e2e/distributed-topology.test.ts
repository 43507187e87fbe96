import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { NatsBus, subjects } from "@junction/bus";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ConnectionCreatedSchema } from "@junction/contracts/events/v1/events_pb";
import { h2cTransport } from "@junction/platform";
import { freePort } from "../support/free-port.ts";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

const SECRET = "jct_sk_distributed_test_key_0123456789";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";
let connectionUrl = "";
let observer: NatsBus;
const created: string[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  const ports = {
    gateway: await freePort(),
    connection: await freePort(),
    proxy: await freePort(),
    channel: await freePort(),
    webhook: await freePort(),
  };
  gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  connectionUrl = `http://127.0.0.1:${ports.connection}`;
  const env: Record<string, string> = {
    JUNCTION_DATA_DIR: data.path,
    JUNCTION_BASE_URL: "https://junction.example.test",
    JUNCTION_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JUNCTION_SECRET_KEY: SECRET,
    JUNCTION_NATS_URL: nats.url,
    JUNCTION_HOST: "127.0.0.1",
    PORT: String(ports.gateway),
    JUNCTION_CONNECTION_PORT: String(ports.connection),
    JUNCTION_PROXY_PORT: String(ports.proxy),
    JUNCTION_CHANNEL_PORT: String(ports.channel),
    JUNCTION_WEBHOOK_PORT: String(ports.webhook),
    JUNCTION_CONNECTION_URL: connectionUrl,
    JUNCTION_PROXY_URL: `http://127.0.0.1:${ports.proxy}`,
    JUNCTION_CHANNEL_URL: `http://127.0.0.1:${ports.channel}`,
    JUNCTION_WEBHOOK_URL: `http://127.0.0.1:${ports.webhook}`,
  };
  observer = await NatsBus.connect({ servers: nats.url, name: "test-observer" });
  await observer.subscribe(subjects.connectionCreated(), (msg) => {
    created.push(fromBinary(ConnectionCreatedSchema, msg.data).connectionId);
  });
  for (const name of ["connection", "proxy", "channel", "webhook"])
    procs.push(startJunctionProcess(name, ["serve", name], env));
  procs.push(startJunctionProcess("gateway", ["serve", "gateway"], env));
  try {
    await Promise.all(procs.map((p) => p.listening()));
    await waitFor("the gateway to report healthy", async () => (await fetch(`${gatewayUrl}/health`)).ok, 20_000, 50);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${procs.map((p) => `--- ${p.name}\n${p.output()}`).join("\n")}`);
  }
}, 40_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await observer?.close();
  await nats?.stop();
  data.remove();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("distributed topology (separate processes, Connect over h2c, NATS)", () => {
  test("runs each service as its own process", () => {
    expect(procs.map((p) => p.name).sort()).toEqual(["channel", "connection", "gateway", "proxy", "webhook"]);
    const pids = new Set(procs.map((p) => p.proc.pid));
    expect(pids.size).toBe(5);
    for (const p of procs) expect(p.proc.exitCode).toBeNull();
  });

  test("creates an integration, a connection, sets and reads metadata, lists connections", async () => {
    const integ = await api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    expect(integ.status).toBe(200);
    expect(integ.body.data.webhook_url).toMatch(/^https:\/\/junction\.example\.test\/webhook\/env_[0-9a-z]+\/cal$/);

    // Until OAuth lands, connections are imported with their credentials (Nango's POST /connections).
    const imported = await api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "user-1",
      credentials: { type: "OAUTH2", access_token: "at-1", refresh_token: "rt-1", expires_at: "2030-01-01T00:00:00Z" },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.credentials).toEqual({ type: "OAUTH2", expires_at: "2030-01-01T00:00:00.000Z" });
    expect(JSON.stringify(imported.body)).not.toContain("at-1");
    const connections = createClient(ConnectionService, h2cTransport(connectionUrl));
    await waitFor("the connection.created event over NATS", () => created.includes("user-1"), 5_000);

    const set = await api("PATCH", "/connection/metadata", {
      connection_id: "user-1",
      provider_config_key: "cal",
      metadata: { emailAddress: "user1@example.com" },
    });
    expect(set.status).toBe(200);
    const got = await api("GET", "/connection/user-1?provider_config_key=cal");
    expect(got.status).toBe(200);
    expect(got.body.metadata).toEqual({ emailAddress: "user1@example.com" });

    const list = await api("GET", "/connections?integrationId=cal");
    expect(list.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["user-1"]);

    const match = await connections.matchNotification({
      providerConfigKey: "cal",
      resourceUri: "https://www.googleapis.com/calendar/v3/calendars/USER1%40example.com/events?alt=json",
    });
    expect(match.connectionIds).toEqual(["user-1"]);
  });

  test("errors keep their stable codes across the process boundary", async () => {
    const res = await api("GET", "/connection/ghost?provider_config_key=cal");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("unknown_connection");
  });

  test("webhook settings are served by the webhook process", async () => {
    const res = await api("GET", "/webhook-settings");
    expect(res.status).toBe(200);
    expect(res.body.data.signing_secret_prefix).toMatch(/^whsec_/);
  });
});
