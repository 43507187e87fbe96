import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
});
afterAll(async () => {
  await j.close();
});

const GMAIL_KEYS = ["pubsub_audience", "pubsub_service_account_email", "pubsub_jwks_url", "pubsub_topic"];
/** A provider with channels Junction cannot create itself (scripts only), when the catalogue has one. */

describe("integration settings on the REST API", () => {
  test("create stores provider_settings and managed_channels; GET, list and PATCH show them", async () => {
    const created = await j.api("POST", "/integrations", {
      unique_key: "mail",
      provider: "google-mail",
      provider_settings: { pubsub_audience: "https://junction.example/push", pubsub_topic: "projects/p/topics/t" },
      managed_channels: true,
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      provider_settings: { pubsub_audience: "https://junction.example/push", pubsub_topic: "projects/p/topics/t" },
      managed_channels: true,
    });
    const got = await j.api("GET", "/integrations/mail");
    expect(got.body.data.provider_settings).toEqual(created.body.data.provider_settings);
    expect(got.body.data.managed_channels).toBe(true);
    const listed = await j.api("GET", "/integrations");
    expect(listed.body.data.find((i: { unique_key: string }) => i.unique_key === "mail").managed_channels).toBe(true);

    // PATCH replaces the settings as a whole; an empty value means the default (not stored).
    const patched = await j.api("PATCH", "/integrations/mail", {
      provider_settings: { pubsub_topic: "projects/p/topics/u", pubsub_audience: "" },
      managed_channels: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      provider_settings: { pubsub_topic: "projects/p/topics/u" },
      managed_channels: false,
    });
    // A PATCH without them leaves them as they are.
    const renamed = await j.api("PATCH", "/integrations/mail", { display_name: "Mail" });
    expect(renamed.body.data.provider_settings).toEqual({ pubsub_topic: "projects/p/topics/u" });
    const { integration } = await j.clients.connection.getIntegration({ uniqueKey: "mail" });
    expect(integration?.providerSettings).toEqual({ pubsub_topic: "projects/p/topics/u" });
  });

  test("an integration created without them holds none, managed channels off", async () => {
    const res = await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    expect(res.body.data).toMatchObject({ provider_settings: {}, managed_channels: false });
  });

  test("strict_channels follows managed_channels until set; PATCH sets it, and refuses a non-boolean", async () => {
    const created = await j.api("POST", "/integrations", {
      unique_key: "strict-cal",
      provider: "google-calendar",
      managed_channels: true,
    });
    expect(created.body.data).toMatchObject({ managed_channels: true, strict_channels: true });
    const off = await j.api("PATCH", "/integrations/strict-cal", { strict_channels: false });
    expect(off.body.data).toMatchObject({ managed_channels: true, strict_channels: false });
    expect((await j.api("GET", "/integrations/strict-cal")).body.data.strict_channels).toBe(false);
    const bad = await j.api("PATCH", "/integrations/strict-cal", { strict_channels: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_body");
  });

  test("the tenant setting is stored, and refused when not one URL path segment", async () => {
    const res = await j.api("POST", "/integrations", {
      unique_key: "outlook",
      provider: "microsoft-outlook-calendar",
      credentials: { type: "OAUTH2", client_id: "c", client_secret: "s" },
      provider_settings: { tenant: "contoso.onmicrosoft.com" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.provider_settings).toEqual({ tenant: "contoso.onmicrosoft.com" });
    const bad = await j.api("PATCH", "/integrations/outlook", { provider_settings: { tenant: "a/b" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", errors: [{ path: "provider_settings.tenant" }] });
  });

  test("an unknown key: 400 unknown_provider_setting naming it and the keys the provider takes", async () => {
    const res = await j.api("POST", "/integrations", {
      unique_key: "mail-bad",
      provider: "google-mail",
      provider_settings: { tenant: "common" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("unknown_provider_setting");
    expect(res.body.error.errors).toEqual([
      {
        location: "body",
        path: "provider_settings.tenant",
        message: `is not a setting of google-mail; it takes ${GMAIL_KEYS.join(", ")}`,
      },
    ]);
    expect((await j.api("GET", "/integrations/mail-bad")).status).toBe(404);
    const patched = await j.api("PATCH", "/integrations/mail", { provider_settings: { colour: "red" } });
    expect(patched.body.error).toMatchObject({
      code: "unknown_provider_setting",
      errors: [{ path: "provider_settings.colour" }],
    });
  });

  test("a value too long, or not a string: 400 invalid_body naming the field", async () => {
    const long = await j.api("PATCH", "/integrations/mail", { provider_settings: { pubsub_topic: "x".repeat(2049) } });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: "invalid_body",
      errors: [
        { location: "body", path: "provider_settings.pubsub_topic", message: "must be at most 2048 characters" },
      ],
    });
    const number = await j.api("PATCH", "/integrations/mail", { provider_settings: { pubsub_topic: 1 } });
    expect(number.body.error).toMatchObject({
      code: "invalid_body",
      errors: [{ path: "provider_settings.pubsub_topic" }],
    });
    const flag = await j.api("PATCH", "/integrations/mail", { managed_channels: "yes" });
    expect(flag.body.error).toMatchObject({ code: "invalid_body", errors: [{ path: "managed_channels" }] });
  });

  test("GET /providers says what each provider takes and what its channels are", async () => {
    const res = await j.api("GET", "/providers/google-mail");
    expect(res.body.data.integration_settings.map((s: { key: string }) => s.key)).toEqual(GMAIL_KEYS);
    expect(res.body.data.integration_settings[2]).toMatchObject({
      label: "Token signing keys (JWKS URL)",
      default_value: "https://www.googleapis.com/oauth2/v3/certs",
    });
    expect(res.body.data.integration_settings[0].docs_url).toStartWith("https://");
    expect(res.body.data.channels).toEqual({ kind: "mailbox watch", manageable: true });
    const outlook = await j.api("GET", "/providers/microsoft-outlook-calendar");
    expect(outlook.body.data.integration_settings).toMatchObject([{ key: "tenant", default_value: "common" }]);
    expect(outlook.body.data.channels).toEqual({ kind: "subscription", manageable: true });
    const calendar = await j.api("GET", "/providers/google-calendar");
    expect(calendar.body.data).toMatchObject({ integration_settings: [], channels: { kind: "watch channel" } });
  });
});
