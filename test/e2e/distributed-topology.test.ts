import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fromBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { subjects } from "@junction/bus";
import { NatsBus } from "@junction/bus/nats-bus";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ConnectionCreatedSchema } from "@junction/contracts/events/v1/events_pb";
import { h2cTransport } from "@junction/platform/h2c";
import { startFakeAuthorizationServer } from "@junction/providers/fake-authorization-server";
import type { JunctionProcess } from "../support/junction-process.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
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
  observer = await NatsBus.connect({ servers: nats.url, name: "test-observer" });
  await observer.subscribe(subjects.connectionCreated(), (msg) => {
    created.push(fromBinary(ConnectionCreatedSchema, msg.data).connectionId);
  });
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    baseUrl: "https://junction.example.test",
  });
  gatewayUrl = junction.gatewayUrl;
  connectionUrl = junction.serviceUrls.connection ?? "";
  procs.push(...junction.procs);
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

    const { results } = await connections.matchNotifications({
      requests: [
        {
          providerConfigKey: "cal",
          resourceUri: "https://www.googleapis.com/calendar/v3/calendars/USER1%40example.com/events?alt=json",
        },
      ],
    });
    expect(results[0]?.connectionIds).toEqual(["user-1"]);
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

  test("a provider defined over the API (POST /providers) serves the proxy process's calls", async () => {
    const upstream = startFakeAuthorizationServer();
    try {
      const definition = {
        name: "acme-keys",
        displayName: "Acme Keys",
        authMode: "API_KEY",
        docsUrl: "https://docs.acme-keys.test/auth",
        baseUrl: `${upstream.url}/api`,
        apiKey: { in: "header", name: "x-acme-key" },
      };
      expect((await api("POST", "/providers", definition)).status).toBe(201);
      expect((await api("POST", "/integrations", { unique_key: "keys", provider: "acme-keys" })).status).toBe(200);
      const imported = await api("POST", "/connections", {
        provider_config_key: "keys",
        connection_id: "k1",
        credentials: { type: "API_KEY", apiKey: "key-1" },
      });
      expect(imported.status).toBe(200);
      const res = await fetch(`${gatewayUrl}/proxy/things`, {
        headers: { authorization: `Bearer ${SECRET}`, "provider-config-key": "keys", "connection-id": "k1" },
      });
      expect(res.status).toBe(200);
      const echo = (await res.json()) as { path: string; headers: Record<string, string> };
      expect(echo.path).toBe("/api/things");
      expect(echo.headers["x-acme-key"]).toBe("key-1");
    } finally {
      await upstream.stop();
    }
  });
});
