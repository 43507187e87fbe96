import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { createJunctionClient, type JunctionClient, junctionError } from "@junction/client";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { newId } from "@junction/platform";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import {
  addConnection,
  type CustomerReceiver,
  eventsUri,
  googHeaders,
  notify,
  startCustomerReceiver,
} from "./notifications-kit.ts";
import { waitFor } from "../support/wait-for.ts";
import { syncSource } from "./scripts-kit.ts";

const KEY = "rpc-cal";
let j: TestJunction;
let client: JunctionClient;
let receiver: CustomerReceiver;

beforeAll(async () => {
  j = await startTestJunction();
  receiver = startCustomerReceiver();
  expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
  client = createJunctionClient(j.url, TEST_SECRET_KEY);
  const created = await j.api("POST", "/integrations", {
    unique_key: KEY,
    provider: "google-calendar",
    credentials: { type: "OAUTH2", client_id: "client-abc", client_secret: "very-secret-client-secret" },
  });
  expect(created.status).toBe(200);
  const imported = await j.api("POST", "/connections", {
    provider_config_key: KEY,
    connection_id: "alice",
    credentials: {
      type: "OAUTH2",
      access_token: "alice-access-token",
      refresh_token: "alice-refresh-token",
      expires_at: 1_900_000_000_000,
    },
  });
  expect(imported.status).toBe(200);
});
afterAll(async () => {
  await j.close();
  await receiver.stop();
});

/** What a refused call threw: the Connect code and Junction's stable code. */
async function refusal(call: Promise<unknown>): Promise<{ connect: Code; code: string; fields: string[] }> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    const e = junctionError(err);
    return { connect: e.connectCode, code: e.code, fields: e.errors.map((f) => f.path) };
  }
  throw new Error("the call was not refused");
}

/** A raw Connect call (JSON) to a path under /rpc, with the test key unless told. */
function rawRpc(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${j.url.replace(/\/+$/, "")}/rpc/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_SECRET_KEY}`, "content-type": "application/json", ...headers },
    body,
  });
}

describe("typed RPC client over real HTTP", () => {
  test("integrations and connections: lists what REST created, in the protos' shapes", async () => {
    const { integrations } = await client.connection.listIntegrations({});
    expect(integrations.map((i) => i.uniqueKey)).toEqual([KEY]);
    expect(integrations[0]?.hasClientSecret).toBe(true);
    const { connections, total } = await client.connection.listConnections({ providerConfigKey: KEY });
    expect(total).toBe(1);
    expect(connections[0]?.connectionId).toBe("alice");
  });

  test("metadata: a write through RPC is what REST then reads", async () => {
    const res = await client.connection.writeMetadata({
      providerConfigKey: KEY,
      connectionIds: ["alice"],
      metadata: { team: "blue", emailAddress: "alice@example.com" },
      mode: MetadataWriteMode.SET,
    });
    expect(res.connections[0]?.metadata).toEqual({ team: "blue", emailAddress: "alice@example.com" });
    const rest = await j.api("GET", `/connections?connectionId=alice`);
    expect(rest.body.connections[0].metadata).toEqual({ team: "blue", emailAddress: "alice@example.com" });
  });

  test("deliveries: lists, reads and replays a forwarded notification; unknown ids and bad limits refused", async () => {
    const uri = eventsUri("rpc@example.com");
    await addConnection(j, "watcher", { key: KEY, metadata: { calendarWatchResourceUris: [uri] } });
    expect((await notify(j, googHeaders(uri), { key: KEY })).status).toBe(200);
    await receiver.waitFor(1);
    const { messages } = await client.webhook.listMessages({ providerConfigKey: KEY, connectionId: "watcher" });
    expect(messages.map((m) => m.type)).toEqual(["forward"]);
    const id = messages[0]?.id ?? "";
    expect((await client.webhook.getMessage({ id })).message?.connectionId).toBe("watcher");
    await client.webhook.replayMessage({ id });
    expect((await receiver.waitFor(2)).map((d) => JSON.parse(d.body).connectionId)).toEqual(["watcher", "watcher"]);
    expect(await refusal(client.webhook.getMessage({ id: newId("msg") }))).toMatchObject({
      connect: Code.NotFound,
      code: "unknown_message",
    });
    expect(await refusal(client.webhook.listMessages({ limit: 501 }))).toMatchObject({
      connect: Code.InvalidArgument,
      fields: ["limit"],
    });
  });

  test("channels: lists and stops in the key's environment, and refuses naming another one", async () => {
    expect((await client.channel.listChannels({ providerConfigKey: KEY })).channels).toEqual([]);
    expect((await client.channel.stopChannels({ providerConfigKey: KEY })).results).toEqual([]);
    const other = await refusal(client.channel.stopChannels({ providerConfigKey: KEY, environmentId: "env_other" }));
    expect(other).toMatchObject({ connect: Code.PermissionDenied, code: "environment_not_allowed" });
  });

  test("scripts and syncs: reads a deployed sync, its status and frequency; checks sync names as REST does", async () => {
    const source = syncSource("nango.log('ran');", "autoStart: false");
    const deployed = await j.api("POST", "/scripts", {
      provider_config_key: KEY,
      name: "rpc-sync",
      filename: "rpc-sync.ts",
      source,
    });
    expect(deployed.status).toBe(201);
    expect((await client.scripts.listScripts({ providerConfigKey: KEY })).scripts.map((x) => x.latest?.name)).toEqual([
      "rpc-sync",
    ]);
    expect((await client.scripts.getScript({ providerConfigKey: KEY, name: "rpc-sync" })).source).toBe(source);
    await client.scripts.setSyncFrequency({
      providerConfigKey: KEY,
      connectionId: "alice",
      syncName: "rpc-sync",
      frequency: "every 2 hours",
    });
    const { syncs } = await client.scripts.getSyncStatus({ providerConfigKey: KEY, connectionId: "alice" });
    expect(syncs.map((x) => [x.connectionId, x.name, x.frequency])).toEqual([["alice", "rpc-sync", "every 2 hours"]]);
    expect((await client.scripts.listRuns({ providerConfigKey: KEY })).runs).toEqual([]);
    const long = await refusal(client.scripts.setSyncsPaused({ providerConfigKey: KEY, syncs: ["x".repeat(65)] }));
    expect(long).toMatchObject({ connect: Code.InvalidArgument, code: "invalid_body", fields: ["syncs.0"] });
  });

  test("records: a sync's records listed, pruned and counted through the typed client", async () => {
    const source = syncSource(
      'await nango.batchSave([{ id: "a", n: 1 }, { id: "b", n: 2 }], "Thing");',
      "autoStart: false",
    );
    expect((await j.api("POST", "/scripts", { provider_config_key: KEY, name: "rpc-records", source })).status).toBe(
      201,
    );
    const trigger = await j.api("POST", "/sync/trigger", {
      provider_config_key: KEY,
      connection_id: "alice",
      syncs: ["rpc-records"],
    });
    expect(trigger.status).toBe(200);
    const page = await waitFor("the sync's records", async () => {
      const res = await client.scripts.listRecords({
        providerConfigKey: KEY,
        connectionId: "alice",
        model: "Thing",
        limit: 1,
      });
      return res.recordsJson !== "[]" ? res : null;
    });
    const [first] = JSON.parse(page.recordsJson);
    expect([first.id, first.n, first._nango_metadata.last_action]).toEqual(["a", 1, "ADDED"]);
    expect(page.nextCursor).not.toBe("");
    const models = await client.scripts.listRecordModels({ providerConfigKey: KEY, connectionId: "alice" });
    expect(models.models.map((m) => [m.model, m.variant, Number(m.count)])).toEqual([["Thing", "base", 2]]);
    const pruned = await client.scripts.pruneRecords({
      providerConfigKey: KEY,
      connectionId: "alice",
      model: "Thing",
      untilCursor: first._nango_metadata.cursor,
    });
    expect([Number(pruned.count), pruned.hasMore]).toEqual([1, false]);
    const ghost = await refusal(
      client.scripts.listRecords({ providerConfigKey: KEY, connectionId: "ghost", model: "Thing" }),
    );
    expect(ghost).toMatchObject({ connect: Code.InvalidArgument, code: "unknown_connection" });
  });

  test("a wrong key is Unauthenticated with REST's code, and the key is in no log line", async () => {
    const wrong = createJunctionClient(j.url, "jct_sk_test_not-a-real-key-0000000000");
    expect(await refusal(wrong.connection.listIntegrations({}))).toEqual({
      connect: Code.Unauthenticated,
      code: "unknown_account",
      fields: [],
    });
    const missing = await rawRpc("junction.connection.v1.ConnectionService/ListIntegrations", "{}", {
      authorization: "",
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("junction-error-code")).toBe("missing_auth_header");
    expect(j.logLines.join("\n")).not.toContain("not-a-real-key");
    expect(j.logLines.join("\n")).not.toContain(TEST_SECRET_KEY);
  });

  test("internal RPCs are not served at the prefix: Unimplemented with unknown_rpc, even with a valid key", async () => {
    for (const path of [
      "junction.connection.v1.ConnectionService/VerifySecretKey",
      "junction.connection.v1.ConnectionService/GetCredentials",
      "junction.connection.v1.ConnectionService/SubmitConnectForm",
      "junction.proxy.v1.ProxyService/ResolveUpstream",
      "junction.webhook.v1.WebhookService/ReceiveNotifications",
      "junction.webhook.v1.WebhookService/RotateSigningSecret",
      "junction.channel.v1.ChannelService/CheckNotifications",
    ]) {
      const res = await rawRpc(path, JSON.stringify({ secretKey: TEST_SECRET_KEY }));
      // The Connect protocol's status for Unimplemented.
      expect(res.status).toBe(501);
      expect(res.headers.get("junction-error-code")).toBe("unknown_rpc");
      expect(((await res.json()) as { code: string }).code).toBe("unimplemented");
    }
    // Nor on the typed client.
    expect("getCredentials" in client.connection).toBe(false);
    expect("verifySecretKey" in client.connection).toBe(false);
  });

  test("a bad argument is InvalidArgument with Junction's code and the field", async () => {
    const metadata = await refusal(
      client.connection.writeMetadata({
        providerConfigKey: KEY,
        connectionIds: ["alice"],
        metadata: { emailAddress: 42 },
        mode: MetadataWriteMode.SET,
      }),
    );
    expect(metadata).toMatchObject({ connect: Code.InvalidArgument, code: "invalid_metadata" });
    const override = await refusal(
      client.connection.createIntegration({
        uniqueKey: "rpc-bad",
        provider: "google-calendar",
        overrides: { baseUrl: "not a url", authorizationUrl: "", tokenUrl: "" },
      }),
    );
    expect(override).toEqual({ connect: Code.InvalidArgument, code: "invalid_body", fields: ["overrides.base_url"] });
    // The webhook URL override is checked by the endpoints' rules, as PATCH /connections/{id} checks it.
    const hook = await refusal(
      client.connection.updateConnection({ providerConfigKey: KEY, connectionId: "alice", webhookUrlOverride: "nope" }),
    );
    expect(hook).toMatchObject({ connect: Code.InvalidArgument, code: "invalid_webhook_url" });
    const set = await client.connection.updateConnection({
      providerConfigKey: KEY,
      connectionId: "alice",
      webhookUrlOverride: "http://127.0.0.1:9/hook",
    });
    expect(set.connection?.webhookUrlOverride).toBe("http://127.0.0.1:9/hook");
    const unknown = await refusal(client.connection.getConnection({ providerConfigKey: KEY, connectionId: "nobody" }));
    expect(unknown).toMatchObject({ connect: Code.NotFound, code: "unknown_connection" });
  });

  test("a body the protocol cannot read is invalid_body, as REST's, and an unknown field is refused", async () => {
    const path = "junction.connection.v1.ConnectionService/ListConnections";
    const cases: [string, string][] = [
      ["application/json", "{nope"],
      ["application/json", '{"limit":"x"}'],
      ["application/json", '{"colour":1}'],
      ["application/proto", "\xff\xff"],
    ];
    for (const [type, body] of cases) {
      const res = await rawRpc(path, body, { "content-type": type });
      expect(res.status).toBe(400);
      expect(res.headers.get("junction-error-code")).toBe("invalid_body");
      expect(((await res.json()) as { code: string }).code).toBe("invalid_argument");
    }
    const plain = await rawRpc(path, "{}", { "content-type": "text/plain" });
    expect(plain.headers.get("junction-error-code")).toBe("unsupported_media_type");
  });

  test("a body over the method's REST limit is refused before any service sees it", async () => {
    // Metadata takes 1 MiB, as POST /connections/metadata does.
    const big = await refusal(
      client.connection.writeMetadata({
        providerConfigKey: KEY,
        connectionIds: ["alice"],
        metadata: { blob: "x".repeat(1024 * 1024) },
        mode: MetadataWriteMode.SET,
      }),
    );
    expect(big).toMatchObject({ connect: Code.InvalidArgument, code: "request_too_large" });
    // Other methods take REST's 64 KiB: refused on the declared length, and on the bytes read.
    const declared = await rawRpc("junction.connection.v1.ConnectionService/ListIntegrations", "x".repeat(70 * 1024));
    expect(declared.headers.get("junction-error-code")).toBe("request_too_large");
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 70; i++) controller.enqueue(new Uint8Array(1024).fill(32));
        controller.close();
      },
    });
    const streamed = await rawRpc("junction.connection.v1.ConnectionService/ListIntegrations", chunks as never);
    expect(streamed.headers.get("junction-error-code")).toBe("request_too_large");
    // A compressed body is refused: its size once expanded would escape the limit.
    const gzipped = Bun.gzipSync(JSON.stringify({ providerConfigKey: KEY, metadata: { blob: "x".repeat(2 << 20) } }));
    const compressed = await rawRpc("junction.connection.v1.ConnectionService/WriteMetadata", gzipped as never, {
      "content-encoding": "gzip",
    });
    expect(compressed.headers.get("junction-error-code")).toBe("unsupported_encoding");
    expect(((await compressed.json()) as { code: string }).code).toBe("unimplemented");
    const after = await j.api("GET", "/connections?connectionId=alice");
    expect(after.body.connections[0].metadata.blob).toBeUndefined();
  });

  test("reads a connection's token as GET /connection/{id} does", async () => {
    const res = await client.connection.getConnection({
      providerConfigKey: KEY,
      connectionId: "alice",
      includeCredentials: true,
    });
    expect(res.credentials?.accessToken).toBe("alice-access-token");
    // The refresh token stays in Junction, as REST's default answer keeps it.
    expect(res.credentials?.refreshToken).toBe("");
    expect(JSON.stringify(res.credentials?.raw ?? {})).not.toContain("alice-refresh-token");
  });
});

describe("typed RPC client, credential reads switched off", () => {
  test("a token read is refused with credential_reads_disabled, as REST is", async () => {
    const off = await startTestJunction({ env: { JUNCTION_CREDENTIAL_READS: "false" } });
    try {
      const c = createJunctionClient(off.url, TEST_SECRET_KEY);
      await off.api("POST", "/integrations", {
        unique_key: KEY,
        provider: "google-calendar",
        credentials: { type: "OAUTH2", client_id: "c", client_secret: "s" },
      });
      await off.api("POST", "/connections", {
        provider_config_key: KEY,
        connection_id: "bob",
        credentials: { type: "OAUTH2", access_token: "bob-access-token" },
      });
      const read = await refusal(
        c.connection.getConnection({ providerConfigKey: KEY, connectionId: "bob", includeCredentials: true }),
      );
      expect(read).toMatchObject({ connect: Code.PermissionDenied, code: "credential_reads_disabled" });
      const plain = await c.connection.getConnection({ providerConfigKey: KEY, connectionId: "bob" });
      expect(plain.connection?.connectionId).toBe("bob");
      expect(plain.credentials).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
