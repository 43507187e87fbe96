import { afterEach, describe, expect, test } from "bun:test";
import { emailAddressHash } from "@junction/connection-service";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { connectInBrowser } from "./sandbox-kit.ts";

const world = useOAuthWorld();
const TEST_CLIENT = { clientId: "operator-test-client.apps.fake", clientSecret: "operator-test-secret" };

describe("test mode with operator test credentials", () => {
  test("is unavailable until the operator configures credentials for the provider", async () => {
    const w = await world();
    await w.integration();
    const state = await w.j.api("GET", "/integrations/cal/test-mode");
    expect(state.body).toEqual({ data: { enabled: false, available: false, client_id: null, sandbox: false } });
    const on = await w.j.api("PUT", "/integrations/cal/test-mode", { enabled: true });
    expect(on.status).toBe(409);
    expect(on.body.error.code).toBe("test_credentials_unavailable");
    expect(on.body.error.message).toContain("JUNCTION_TEST_CREDENTIALS_");
    const bad = await w.j.api("PUT", "/integrations/cal/test-mode", { enabled: "yes" });
    expect(bad.status).toBe(400);
  });

  test("an integration without its own credentials connects with them, and its connections keep using them", async () => {
    const w = await world({
      fake: { clients: [CLIENT, TEST_CLIENT] },
      env: (fake) => ({
        JUNCTION_TEST_CREDENTIALS_GOOGLE_CALENDAR: JSON.stringify({
          client_id: TEST_CLIENT.clientId,
          client_secret: TEST_CLIENT.clientSecret,
          authorization_url: fake.endpoints.authorizationUrl,
          token_url: fake.endpoints.tokenUrl,
          base_url: fake.url,
        }),
      }),
    });
    const j = w.j;
    expect((await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" })).status).toBe(200);
    const session = async () =>
      (await j.api("POST", "/connect/sessions", { end_user: { id: "u1" }, allowed_integrations: ["cal"] })).body.data
        .token as string;
    const start = (token: string) =>
      fetch(`${j.url}/oauth/connect/cal?connect_session_token=${token}`, { redirect: "manual" });

    const missing = await start(await session());
    expect(missing.status).toBe(409);
    expect(((await missing.json()) as any).error.code).toBe("integration_missing_credentials");

    const on = await j.api("PUT", "/integrations/cal/test-mode", { enabled: true });
    expect(on.body.data).toEqual({ enabled: true, available: true, client_id: TEST_CLIENT.clientId, sandbox: false });
    const redirect = await start(await session());
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get("location") as string);
    expect(location.searchParams.get("client_id")).toBe(TEST_CLIENT.clientId);
    const callback = await w.fake.authorize(location.toString());
    const page = await fetch(`${j.url}/oauth/callback${callback.search}`);
    expect(page.status).toBe(200);

    const id = (await j.api("GET", "/connections?integrationId=cal")).body.connections[0].connection_id as string;
    const ref = { providerConfigKey: "cal", connectionId: id };
    const creds = await j.clients.connection.getCredentials(ref);
    expect(creds.integration?.overrides?.baseUrl).toBe(w.fake.url);
    expect(creds.connection?.connectionConfig).toEqual({ emailAddressHash: emailAddressHash("alice@example.com") });

    // Switched back, the integration's new authorizations need its own credentials; the test
    // connection still refreshes with the client that issued its tokens.
    const off = await j.api("PUT", "/integrations/cal/test-mode", { enabled: false });
    expect(off.body.data.enabled).toBe(false);
    await w.clock.advance(3600_000);
    const refreshed = await j.clients.connection.getCredentials(ref);
    expect(refreshed.credentials?.accessToken).not.toBe(creds.credentials?.accessToken as string);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
    expect(j.logLines.join("\n")).not.toContain(TEST_CLIENT.clientSecret);
    expect(JSON.stringify(on.body)).not.toContain(TEST_CLIENT.clientSecret);
  });
});

describe("the built-in sandbox upstream", () => {
  let j: TestJunction | undefined;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await j?.close();
    await receiver?.stop();
    j = undefined;
  });

  test("lets a new user create an integration, authorize a test connection in the browser and see a notification forwarded, on one machine", async () => {
    receiver = startWebhookReceiver();
    j = await startTestJunction({ env: { JUNCTION_SANDBOX_UPSTREAM: "true" } });
    expect((await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" })).status).toBe(200);
    const mode = await j.api("PUT", "/integrations/cal/test-mode", { enabled: true });
    expect(mode.body.data).toMatchObject({ enabled: true, available: true, sandbox: true });
    // The browser: /oauth/connect → the sandbox's consent page → Allow → /oauth/callback.
    // The sandbox answers as Google does: writing an event needs a write scope beyond the default read one.
    const id = await connectInBrowser(j, "cal", "me@example.org", ["https://www.googleapis.com/auth/calendar.events"]);
    expect((await j.api("GET", "/connections?integrationId=cal")).body.connections).toHaveLength(1);
    const conn = await j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.connection_config.emailAddressHash).toBe(emailAddressHash("me@example.org"));
    const creds = await j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id });
    const line = j.logLines.find((l) => l.includes("sandbox upstream listening")) ?? "";
    expect(creds.integration?.overrides?.baseUrl).toBe((JSON.parse(line) as { url: string }).url);

    // ...and see a notification forwarded: a channel and an event made through the proxy, on the sandbox.
    const hooks = await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] });
    expect(hooks.status).toBe(200);
    const webhookUrl = (await j.api("GET", "/integrations/cal?include=webhook")).body.data.webhook_url as string;
    const proxy = { "provider-config-key": "cal", "connection-id": id };
    const calendar = "/proxy/calendar/v3/calendars/me%40example.org";
    const watch = await j.api(
      "POST",
      `${calendar}/events/watch`,
      { id: crypto.randomUUID(), type: "web_hook", address: webhookUrl },
      proxy,
    );
    expect(watch.status).toBe(200);
    const event = await j.api(
      "POST",
      `${calendar}/events`,
      {
        summary: "Try Junction",
        start: { dateTime: "2026-12-01T10:00:00Z" },
        end: { dateTime: "2026-12-01T11:00:00Z" },
      },
      proxy,
    );
    expect(event.status).toBe(200);
    const received = await receiver.waitFor(2, 10_000);
    const forwards = received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "forward");
    expect(forwards.length).toBeGreaterThanOrEqual(1);
    expect(forwards[0]).toMatchObject({ type: "forward", providerConfigKey: "cal", connectionId: id });
  });
});

describe("consent guidance", () => {
  test("lists each scope's sensitivity and what it means for going live", async () => {
    const w = await world();
    await w.integration();
    const mail = await w.j.api("POST", "/integrations", {
      unique_key: "mail",
      provider: "google-mail",
      credentials: {
        type: "OAUTH2",
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        scopes: ["email", "https://www.googleapis.com/auth/gmail.readonly", "https://example.test/unknown"],
      },
    });
    expect(mail.status).toBe(200);
    const cal = await w.j.api("GET", "/integrations/cal/consent");
    expect(cal.status).toBe(200);
    expect(cal.body.data).toMatchObject({
      provider_config_key: "cal",
      provider: "google-calendar",
      highest_sensitivity: "sensitive",
      verification_required: true,
      security_assessment_required: false,
      testing_mode_refresh_token_days: 7,
    });
    expect(cal.body.data.scopes.map((s: any) => s.sensitivity)).toEqual(["basic", "basic", "sensitive"]);

    const m = (await w.j.api("GET", "/integrations/mail/consent")).body.data;
    expect(m.highest_sensitivity).toBe("restricted");
    expect(m.security_assessment_required).toBe(true);
    expect(m.scopes).toEqual([
      { name: "email", description: "The user's email address.", sensitivity: "basic" },
      {
        name: "https://www.googleapis.com/auth/gmail.readonly",
        description: "View messages and settings.",
        sensitivity: "restricted",
      },
      { name: "https://example.test/unknown", description: null, sensitivity: "unknown" },
    ]);
    expect(m.notes.join(" ")).toMatch(/security assessment/);
    expect(m.notes.join(" ")).toMatch(/7 days/);

    const basic = await w.j.api("POST", "/integrations", {
      unique_key: "basic",
      provider: "google-calendar",
      credentials: { type: "OAUTH2", client_id: "x", client_secret: "y", scopes: ["openid", "email"] },
    });
    expect(basic.status).toBe(200);
    const b = (await w.j.api("GET", "/integrations/basic/consent")).body.data;
    expect(b).toMatchObject({
      verification_required: false,
      testing_mode_refresh_token_days: 0,
      highest_sensitivity: "basic",
    });
    expect((await w.j.api("GET", "/integrations/missing/consent")).status).toBe(404);
  });
});
