/**
 * Junction as a drop-in for Nango's public API, proven with Nango's own Node SDK
 * (@nangohq/node), every method called as Nango's docs show it
 * (docs/reference/backend/backend-sdk/node.mdx). Methods whose fixes live in other branches are in
 * nango-sdk-pending.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  ALICE,
  CALENDAR,
  CONNECTION,
  MAIL,
  type SdkHarness,
  sdkFailure,
  startSdkHarness,
  useReceiver,
} from "./nango-sdk-kit.ts";
import { eventsUri, googHeaders, notify } from "./notifications-kit.ts";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";

const oauthWorld = useOAuthWorld();

let h: SdkHarness;
beforeAll(async () => {
  h = await startSdkHarness();
});
afterAll(async () => {
  await h.close();
});

const connectionIds = (res: { connections: Array<{ connection_id: string; provider_config_key: string }> }) =>
  res.connections.map((c) => `${c.provider_config_key}/${c.connection_id}`).sort();

describe("Nango SDK: providers", () => {
  test("listProviders and getProvider answer the templates in Nango's shape", async () => {
    const list = await h.nango.listProviders({});
    expect(list.data.map((p) => p.name)).toContain("google-calendar");
    const found = await h.nango.listProviders({ search: "GOOGLE-CAL" });
    expect(found.data.map((p) => p.name)).toEqual(["google-calendar"]);
    const one = await h.nango.getProvider({ provider: "google-calendar" });
    expect(one.data).toMatchObject({
      name: "google-calendar",
      auth_mode: "OAUTH2",
      proxy: { base_url: "https://www.googleapis.com" },
    });
    expect(await sdkFailure(h.nango.getProvider({ provider: "no-such-provider" }))).toEqual({
      status: 404,
      code: "unknown_provider",
    });
  });
});

describe("Nango SDK: integrations", () => {
  test("createIntegration, getIntegration, updateIntegration, listIntegrations, deleteIntegration", async () => {
    const created = await h.nango.createIntegration({ provider: "google-calendar", unique_key: "sdk-cal" });
    expect(created.data).toMatchObject({ unique_key: "sdk-cal", provider: "google-calendar" });
    expect(typeof created.data.created_at).toBe("string");

    const got = await h.nango.getIntegration({ uniqueKey: "sdk-cal" });
    expect(got.data).toMatchObject({ unique_key: "sdk-cal", provider: "google-calendar", forward_webhooks: true });
    const withWebhook = await h.nango.getIntegration({ uniqueKey: "sdk-cal" }, { include: ["webhook"] });
    expect((withWebhook.data as { webhook_url?: string }).webhook_url).toContain("/webhook/env_");

    const updated = await h.nango.updateIntegration({ uniqueKey: "sdk-cal" }, { display_name: "New name" });
    expect(updated.data).toMatchObject({ unique_key: "sdk-cal", display_name: "New name" });

    const { configs } = await h.nango.listIntegrations();
    expect(configs.map((c) => c.unique_key).sort()).toEqual([CALENDAR, MAIL, "sdk-cal"].sort());
    expect(configs.find((c) => c.unique_key === "sdk-cal")?.display_name).toBe("New name");

    const deleted = await h.nango.deleteIntegration("sdk-cal");
    expect(deleted.status).toBe(200);
    expect(deleted.data).toMatchObject({ success: true });
    expect(await sdkFailure(h.nango.getIntegration({ uniqueKey: "sdk-cal" }))).toEqual({
      status: 404,
      code: "unknown_provider_config",
    });
  });

  test("createIntegration with OAuth client credentials; the secret is never read back", async () => {
    await h.nango.createIntegration({
      provider: "google-mail",
      unique_key: "sdk-mail",
      display_name: "Mail",
      credentials: { type: "OAUTH2", client_id: "sdk-client", client_secret: "sdk-client-secret", scopes: "email" },
      forward_webhooks: false,
    });
    const got = await h.nango.getIntegration({ uniqueKey: "sdk-mail" }, { include: ["credentials"] });
    expect(got.data).toMatchObject({
      display_name: "Mail",
      forward_webhooks: false,
      credentials: { type: "OAUTH2", client_id: "sdk-client", client_secret: null },
    });
    expect(JSON.stringify(got)).not.toContain("sdk-client-secret");
    await h.nango.deleteIntegration("sdk-mail");
  });

  test("deleteIntegration of an integration with connections is refused (Junction's difference)", async () => {
    expect(await sdkFailure(h.nango.deleteIntegration(CALENDAR))).toEqual({
      status: 409,
      code: "integration_has_connections",
    });
  });
});

describe("Nango SDK: connect sessions", () => {
  test("createConnectSession with end_user answers a token whose connect_link works", async () => {
    const { data } = await h.nango.createConnectSession({
      end_user: { id: "sdk-user", email: "sdk-user@example.com", display_name: "SDK User" },
      organization: { id: "sdk-org", display_name: "SDK Org" },
      allowed_integrations: [CALENDAR],
      integrations_config_defaults: { [CALENDAR]: { connection_config: { team: "x" } } },
    });
    expect(data.token).toMatch(/^jct_connect_session_/);
    expect(Date.parse(data.expires_at)).toBeGreaterThan(Date.now());
    expect(data.connect_link).toContain(data.token);
    const start = await fetch(
      `${h.junction.url}/oauth/connect/${CALENDAR}?connect_session_token=${encodeURIComponent(data.token)}`,
      { redirect: "manual" },
    );
    expect(start.status).toBe(302);
  });

  test("createReconnectSession for an existing connection", async () => {
    const { data } = await h.nango.createReconnectSession({ connection_id: CONNECTION, integration_id: CALENDAR });
    expect(data.token).toMatch(/^jct_connect_session_/);
    expect(data.connect_link).toContain(data.token);
    expect(
      await sdkFailure(h.nango.createReconnectSession({ connection_id: "nobody", integration_id: CALENDAR })),
    ).toEqual({ status: 404, code: "unknown_connection" });
  });
});

describe("Nango SDK: a user connects through a session the SDK created", () => {
  const receiver = useReceiver();

  test("createConnectSession → consent → callback; waitForConnection finds it, the auth webhook verifies", async () => {
    const w = await oauthWorld();
    await w.integration("cal");
    await w.j.api("PUT", "/webhook-settings", { endpoints: [receiver().url] });
    const signingSecret = (await w.j.api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret;
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url, webhookSigningKey: signingSecret });
    const { data } = await nango.createConnectSession({
      end_user: { id: "sdk-user", email: "alice@example.com" },
      allowed_integrations: ["cal"],
    });
    const result = await w.callback(await w.authorize("cal", data.token));
    expect(result.code).toBe("connected");
    // Polls listConnections({ endUserId }); the first poll is immediate and finds it.
    const connection = await nango.waitForConnection("cal", "sdk-user");
    expect(connection).toMatchObject({ provider_config_key: "cal", provider: "google-calendar" });
    expect(connection.end_user).toMatchObject({ id: "sdk-user", email: "alice@example.com" });

    const auth = await waitFor("the auth webhook", () =>
      receiver().received.find((d) => JSON.parse(d.body).type === "auth"),
    );
    expect(JSON.parse(auth.body)).toMatchObject({ operation: "creation", success: true, providerConfigKey: "cal" });
    expect(nango.verifyIncomingWebhookRequest(auth.body, auth.headers)).toBe(true);
  });
});

describe("Nango SDK: connections", () => {
  test("listConnections: all, by connection id (legacy arguments), by object filters", async () => {
    const all = await h.nango.listConnections();
    expect(connectionIds(all)).toEqual([`${CALENDAR}/${CONNECTION}`, `${MAIL}/${CONNECTION}`]);
    expect(all.connections[0]).toMatchObject({ connection_id: CONNECTION, errors: [] });
    expect(all.connections[0]?.id).toBeDefined();

    const legacy = await h.nango.listConnections(CONNECTION);
    expect(connectionIds(legacy)).toEqual([`${CALENDAR}/${CONNECTION}`, `${MAIL}/${CONNECTION}`]);

    const filtered = await h.nango.listConnections({ connectionId: CONNECTION, integrationId: CALENDAR, limit: 100 });
    expect(connectionIds(filtered)).toEqual([`${CALENDAR}/${CONNECTION}`]);
    expect(JSON.stringify(all)).not.toContain(h.accessToken);
  });

  test("listConnections with several integration ids (the SDK joins them with commas)", async () => {
    const both = await h.nango.listConnections({ integrationId: [CALENDAR, MAIL] });
    expect(connectionIds(both)).toEqual([`${CALENDAR}/${CONNECTION}`, `${MAIL}/${CONNECTION}`]);
    expect(await sdkFailure(h.nango.listConnections({ integrationId: [CALENDAR, "nope"] }))).toEqual({
      status: 404,
      code: "unknown_provider_config",
    });
  });

  test("a connection imported with Nango's REST call is listed, and deleteConnection removes it", async () => {
    // The SDK has no import method (Nango's docs send it to the REST API: POST /connections).
    const imported = await h.junction.api("POST", "/connections", {
      provider_config_key: CALENDAR,
      connection_id: "imported",
      credentials: { type: "OAUTH2", access_token: "imported-token" },
      metadata: { origin: "import" },
    });
    expect(imported.status).toBe(200);
    const listed = await h.nango.listConnections({ connectionId: "imported" });
    expect(listed.connections).toHaveLength(1);
    expect(listed.connections[0]).toMatchObject({ provider_config_key: CALENDAR, metadata: { origin: "import" } });

    // patchConnection sets tags and the webhook URL override, and "" clears the override.
    const hook = "https://hooks.example.test/imported";
    const patched = await h.nango.patchConnection(
      { connectionId: "imported", provider_config_key: CALENDAR },
      { tags: { team: "core" }, webhook_url_override: hook },
    );
    expect(patched).toEqual({ success: true });
    const details = await h.nango.getConnection(CALENDAR, "imported");
    expect(details).toMatchObject({ tags: { team: "core" }, webhook_url_override: hook });
    await h.nango.patchConnection(
      { connectionId: "imported", provider_config_key: CALENDAR },
      { webhook_url_override: "" },
    );
    expect((await h.nango.getConnection(CALENDAR, "imported")).webhook_url_override).toBeNull();

    const deleted = await h.nango.deleteConnection(CALENDAR, "imported");
    expect(deleted.status).toBe(200);
    expect((await h.nango.listConnections({ connectionId: "imported" })).connections).toEqual([]);
    // Junction answers 404 for an unknown connection, as Nango's spec says (its code answers 400).
    expect(await sdkFailure(h.nango.deleteConnection(CALENDAR, "imported"))).toEqual({
      status: 404,
      code: "unknown_connection",
    });
  });
});

describe("Nango SDK: metadata", () => {
  const metadataOf = async (key: string, id: string) =>
    (await h.nango.listConnections({ connectionId: id, integrationId: key })).connections[0]?.metadata;

  test("setMetadata replaces and updateMetadata merges, on one connection", async () => {
    const set = await h.nango.setMetadata(CALENDAR, CONNECTION, { CUSTOM_KEY1: "CUSTOM_VALUE1", other: 1 });
    expect(set.status).toBe(201);
    expect(set.data).toEqual({
      connection_id: CONNECTION,
      provider_config_key: CALENDAR,
      metadata: { CUSTOM_KEY1: "CUSTOM_VALUE1", other: 1 },
    });
    await h.nango.setMetadata(CALENDAR, CONNECTION, { CUSTOM_KEY1: "CUSTOM_VALUE1" });
    expect(await metadataOf(CALENDAR, CONNECTION)).toEqual({ CUSTOM_KEY1: "CUSTOM_VALUE1" });

    const updated = await h.nango.updateMetadata(CALENDAR, CONNECTION, { CUSTOM_KEY2: "CUSTOM_VALUE2" });
    expect(updated.status).toBe(200);
    expect(await metadataOf(CALENDAR, CONNECTION)).toEqual({
      CUSTOM_KEY1: "CUSTOM_VALUE1",
      CUSTOM_KEY2: "CUSTOM_VALUE2",
    });
  });

  test("setMetadata and updateMetadata on a list of connection ids, all or nothing", async () => {
    await h.junction.api("POST", "/connections", {
      provider_config_key: CALENDAR,
      connection_id: "bob",
      credentials: { type: "OAUTH2", access_token: "bob-token" },
    });
    const set = await h.nango.setMetadata(CALENDAR, [CONNECTION, "bob"], { team: "core" });
    expect(set.data.connection_id).toEqual([CONNECTION, "bob"]);
    await h.nango.updateMetadata(CALENDAR, [CONNECTION, "bob"], { plan: "pro" });
    expect(await metadataOf(CALENDAR, CONNECTION)).toEqual({ team: "core", plan: "pro" });
    expect(await metadataOf(CALENDAR, "bob")).toEqual({ team: "core", plan: "pro" });

    expect(await sdkFailure(h.nango.updateMetadata(CALENDAR, ["bob", "nobody"], { plan: "free" }))).toEqual({
      status: 404,
      code: "unknown_connection",
    });
    expect(await metadataOf(CALENDAR, "bob")).toEqual({ team: "core", plan: "pro" });
    await h.nango.deleteConnection(CALENDAR, "bob");
  });
});

describe("Nango SDK: proxy", () => {
  const config = { providerConfigKey: CALENDAR, connectionId: CONNECTION };

  test("get, post, put, patch and delete reach the upstream with the connection's token", async () => {
    const got = await h.nango.get({
      ...config,
      endpoint: "/echo/items",
      params: { q: "a b" },
      headers: { "X-Custom": "yes" },
    });
    expect(got.status).toBe(200);
    expect(got.data).toMatchObject({ method: "GET", path: "/echo/items", query: "q=a+b" });
    expect(got.data.headers.authorization).toBe(`Bearer ${h.accessToken}`);
    expect(got.data.headers["x-custom"]).toBe("yes");
    for (const name of ["provider-config-key", "connection-id", "base-url-override", "nango-proxy-x-custom"]) {
      expect(got.data.headers[name]).toBeUndefined();
    }

    for (const [call, method] of [
      [h.nango.post.bind(h.nango), "POST"],
      [h.nango.put.bind(h.nango), "PUT"],
      [h.nango.patch.bind(h.nango), "PATCH"],
    ] as const) {
      const body = JSON.stringify({ title: method });
      const res = await call({ ...config, endpoint: "/echo/items/1", data: { title: method } });
      expect(res.status).toBe(200);
      expect(res.data).toMatchObject({
        method,
        path: "/echo/items/1",
        bodyLength: body.length,
        bodySha256: new Bun.CryptoHasher("sha256").update(body).digest("hex"),
      });
      expect(res.data.headers.authorization).toBe(`Bearer ${h.accessToken}`);
    }

    const deleted = await h.nango.delete({ ...config, endpoint: "/echo/items/1" });
    expect(deleted.data).toMatchObject({ method: "DELETE", path: "/echo/items/1" });
  });

  test("a real upstream call: create, update, patch and delete a calendar event", async () => {
    const base = `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events`;
    const when = { start: { dateTime: "2026-12-01T09:00:00Z" }, end: { dateTime: "2026-12-01T09:15:00Z" } };
    const created = await h.nango.post({ ...config, endpoint: base, data: { summary: "Standup", ...when } });
    expect(created.status).toBe(200);
    const id = created.data.id as string;
    const replaced = await h.nango.put({ ...config, endpoint: `${base}/${id}`, data: { summary: "Sync", ...when } });
    expect(replaced.data.summary).toBe("Sync");
    const patched = await h.nango.patch({ ...config, endpoint: `${base}/${id}`, data: { summary: "Retro" } });
    expect(patched.data.summary).toBe("Retro");
    const deleted = await h.nango.delete({ ...config, endpoint: `${base}/${id}` });
    expect(deleted.status).toBe(204);
  });

  test("retries is sent as Junction's Retries header: a POST is retried only when asked", async () => {
    const flaky = (key: string, retries?: number) =>
      h.nango.post({ ...config, endpoint: "/flaky/1", headers: { "x-flaky-key": key }, data: {}, retries });
    expect(await sdkFailure(flaky("once"))).toMatchObject({ status: 503 });
    const retried = await flaky("retried", 2);
    expect(retried.data).toEqual({ ok: true, attempt: 2 });
  });

  test("the upstream's errors and Junction's own reach the SDK's caller as they are", async () => {
    expect(await sdkFailure(h.nango.get({ ...config, endpoint: "/status/418", retries: 0 }))).toMatchObject({
      status: 418,
    });
    expect(
      await sdkFailure(h.nango.get({ providerConfigKey: CALENDAR, connectionId: "nobody", endpoint: "/echo" })),
    ).toEqual({ status: 404, code: "unknown_connection" });
  });
});

describe("Nango SDK: webhooks from Junction", () => {
  const receiver = useReceiver();

  test("verifyIncomingWebhookRequest accepts a forwarded notification with the whsec_ signing secret", async () => {
    await h.junction.api("PUT", "/webhook-settings", { endpoints: [receiver().url] });
    const rotated = await h.junction.api("POST", "/webhook-settings/signing-secret", { grace_period_seconds: 0 });
    const signingSecret = rotated.body.data.signing_secret as string;
    expect(signingSecret).toMatch(/^whsec_/);
    await h.nango.updateMetadata(CALENDAR, CONNECTION, { emailAddress: ALICE });

    const sent = await notify(h.junction, googHeaders(eventsUri(ALICE)), { key: CALENDAR });
    expect(sent.status).toBe(200);
    const delivery = await waitFor("the forwarded notification", () =>
      receiver().received.find((d) => JSON.parse(d.body).type === "forward"),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({ type: "forward", connectionId: CONNECTION });

    const verifier = new Nango({ secretKey: TEST_SECRET_KEY, host: h.junction.url, webhookSigningKey: signingSecret });
    expect(verifier.verifyIncomingWebhookRequest(delivery.body, delivery.headers)).toBe(true);
    expect(verifier.verifyIncomingWebhookRequest(delivery.body.replace(CONNECTION, "mallory"), delivery.headers)).toBe(
      false,
    );
    // Without webhookSigningKey the SDK falls back to the secret key, which never signs Junction's webhooks.
    expect(h.nango.verifyIncomingWebhookRequest(delivery.body, delivery.headers)).toBe(false);
  });
});
