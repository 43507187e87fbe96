import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
});
afterAll(async () => {
  await j.close();
});

const calendar = (key: string, extra: Record<string, unknown> = {}) => ({
  unique_key: key,
  provider: "google-calendar",
  credentials: { type: "OAUTH2", client_id: "client-abc", client_secret: "very-secret-client-secret" },
  ...extra,
});

describe("integrations API", () => {
  test("creates an integration from a provider template, in Nango's shape, with its webhook URL", async () => {
    const res = await j.api("POST", "/integrations", calendar("cal-1"));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      unique_key: "cal-1",
      provider: "google-calendar",
      display_name: "Google Calendar",
      forward_webhooks: true,
    });
    const env = (await j.clients.connection.getEnvironment({})).environment!;
    expect(env.id).toMatch(/^env_/);
    expect(res.body.data.webhook_url).toBe(`${j.baseUrl}/webhook/${env.id}/cal-1`);
    expect(typeof res.body.data.created_at).toBe("string");
  });

  test("never returns the client secret, and stores it encrypted", async () => {
    const res = await j.api("GET", "/integrations/cal-1?include=credentials&include=webhook");
    expect(res.status).toBe(200);
    expect(res.body.data.credentials).toMatchObject({ type: "OAUTH2", client_id: "client-abc", client_secret: null });
    expect(res.body.data.credentials.client_secret_set).toBe(true);
    expect(res.text).not.toContain("very-secret-client-secret");
    const db = new Database(join(j.dataDir, "junction.sqlite"), { readonly: true });
    const dump = JSON.stringify(db.query("SELECT * FROM integrations").all());
    db.close();
    expect(dump).toContain("enc:v2:");
    expect(dump).not.toContain("very-secret-client-secret");
    expect(j.logLines.join("\n")).not.toContain("very-secret-client-secret");
  });

  test("uses the template's default scopes and accepts Nango's comma-separated scopes", async () => {
    const res = await j.api(
      "POST",
      "/integrations",
      calendar("cal-scopes", {
        credentials: { type: "OAUTH2", client_id: "c", client_secret: "s", scopes: "openid,email" },
      }),
    );
    expect(res.status).toBe(200);
    const got = await j.api("GET", "/integrations/cal-scopes?include=credentials");
    expect(got.body.data.credentials.scopes).toBe("openid,email");
    const mail = await j.api("POST", "/integrations", { unique_key: "mail-1", provider: "google-mail" });
    expect(mail.status).toBe(200);
    const { integration } = await j.clients.connection.getIntegration({ uniqueKey: "mail-1" });
    expect(integration!.scopes).toContain("https://www.googleapis.com/auth/gmail.readonly");
  });

  test("accepts Nango's webhook_secret, integration_config and custom, and ignores them", async () => {
    const nango = {
      integration_config: { region: "eu" },
      custom: { note: "x" },
      credentials: { type: "OAUTH2", client_id: "c", client_secret: "s", webhook_secret: "whsec-not-kept" },
    };
    const created = await j.api("POST", "/integrations", calendar("cal-nango", nango));
    expect(created.status).toBe(200);
    const patched = await j.api("PATCH", "/integrations/cal-nango", nango);
    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain("whsec-not-kept");
    const wrong = await j.api("PATCH", "/integrations/cal-nango", { integration_config: { region: 1 } });
    expect(wrong.body.error.errors[0]).toMatchObject({ location: "body", path: "integration_config.region" });
  });

  test("lists integrations", async () => {
    const res = await j.api("GET", "/integrations");
    expect(res.status).toBe(200);
    expect(res.body.data.map((i: { unique_key: string }) => i.unique_key)).toEqual(
      expect.arrayContaining(["cal-1", "cal-scopes", "mail-1"]),
    );
  });

  test("refuses a duplicate key with 409 integration_already_exists", async () => {
    const res = await j.api("POST", "/integrations", calendar("cal-1"));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("integration_already_exists");
  });

  test("refuses an unknown provider, naming the known ones", async () => {
    const res = await j.api("POST", "/integrations", { unique_key: "x", provider: "no-such-provider" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("unknown_provider");
    expect(res.body.error.message).toContain("google-calendar");
  });

  test("refuses bad bodies with a stable code naming the field", async () => {
    const unknownField = await j.api("POST", "/integrations", { ...calendar("y"), colour: "red" });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.code).toBe("invalid_body");
    expect(unknownField.body.error.message).toContain("colour");

    const wrongType = await j.api("POST", "/integrations", { unique_key: 42, provider: "google-calendar" });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.errors[0].path).toBe("unique_key");

    const badKey = await j.api("POST", "/integrations", calendar("has space"));
    expect(badKey.status).toBe(400);
    // Refused at the edge as every other field is: invalid_body, with its location.
    expect(badKey.body.error.code).toBe("invalid_body");
    expect(badKey.body.error.errors).toEqual([
      { location: "body", path: "unique_key", message: "must be 1-255 characters of letters, digits and . _ ~ : @ -" },
    ]);

    const malformed = await j.api("POST", "/integrations", "{not json", { "content-type": "application/json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");

    const wrongContentType = await j.api("POST", "/integrations", "unique_key=x", { "content-type": "text/plain" });
    expect(wrongContentType.status).toBe(400);
    expect(wrongContentType.body.error.code).toBe("invalid_content_type");

    const huge = await j.api("POST", "/integrations", { ...calendar("big"), display_name: "x".repeat(70_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe("request_too_large");

    const badOverride = await j.api("POST", "/integrations", {
      ...calendar("o"),
      upstream_overrides: { base_url: "nope" },
    });
    expect(badOverride.status).toBe(400);
    expect(badOverride.body.error.errors[0].path).toBe("upstream_overrides.base_url");

    // Nothing half-written: none of the refused integrations exist.
    const list = await j.api("GET", "/integrations");
    const keys = list.body.data.map((i: { unique_key: string }) => i.unique_key);
    for (const k of ["x", "y", "has space", "big", "o"]) expect(keys).not.toContain(k);
  });

  test("unknown integration gets 404 unknown_provider_config", async () => {
    const res = await j.api("GET", "/integrations/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("unknown_provider_config");
  });

  test("an unknown integration's error names the ids that exist, wherever the id is sent", async () => {
    const fresh = await startTestJunction();
    try {
      const none = await fresh.api("GET", "/integrations/google-calendar");
      expect(none.body.error.message).toContain("No integration exists yet: create one with POST /integrations.");
      await fresh.api("POST", "/integrations", calendar("cal"));
      await fresh.api("POST", "/integrations", { unique_key: "github", provider: "github" });
      const named = "The integrations here: cal, github.";
      const byPath = await fresh.api("GET", "/integrations/google-calendar");
      expect(byPath.status).toBe(404);
      expect(byPath.body.error).toMatchObject({ code: "unknown_provider_config" });
      expect(byPath.body.error.message).toContain(named);
      const byQuery = await fresh.api("GET", "/connections?integrationId=google-calendar");
      const byHeader = await fresh.api("GET", "/connection/alice?provider_config_key=google-calendar");
      const session = await fresh.api("POST", "/connect/sessions/reconnect", {
        connection_id: "alice",
        integration_id: "google-calendar",
      });
      for (const res of [byHeader, session]) {
        expect(res.body.error.code).toBe("unknown_provider_config");
        expect(res.body.error.message).toContain(named);
      }
      expect(byQuery.status).toBeLessThan(500);
    } finally {
      await fresh.close();
    }
  });

  test("unknown query parameters are refused", async () => {
    const res = await j.api("GET", "/integrations/cal-1?include=everything");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_query_params");
  });

  test("updates an integration: operator URL overrides (loopback allowed), rename, scopes", async () => {
    const res = await j.api("PATCH", "/integrations/cal-scopes", {
      unique_key: "cal-renamed",
      display_name: "Renamed",
      upstream_overrides: { base_url: "http://127.0.0.1:9/", token_url: "http://127.0.0.1:9/token" },
      credentials: { type: "OAUTH2", client_id: "c2", scopes: ["openid"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      unique_key: "cal-renamed",
      display_name: "Renamed",
      upstream_overrides: {
        base_url: "http://127.0.0.1:9",
        token_url: "http://127.0.0.1:9/token",
        authorization_url: null,
      },
    });
    expect((await j.api("GET", "/integrations/cal-scopes")).status).toBe(404);
    const { integration } = await j.clients.connection.getIntegration({ uniqueKey: "cal-renamed" });
    expect(integration!.clientId).toBe("c2");
    expect(integration!.hasClientSecret).toBe(true);
    expect(integration!.scopes).toEqual(["openid"]);
  });

  test("refuses to delete an integration with connections unless forced", async () => {
    await j.api("POST", "/integrations", calendar("cal-del"));
    await j.clients.connection.createConnection({ providerConfigKey: "cal-del", connectionId: "u1" });
    const refused = await j.api("DELETE", "/integrations/cal-del");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("integration_has_connections");
    expect((await j.api("GET", "/connection/u1?provider_config_key=cal-del")).status).toBe(200);

    const forced = await j.api("DELETE", "/integrations/cal-del?force=true");
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({ success: true, deleted_connections: 1 });
    expect((await j.api("GET", "/integrations/cal-del")).status).toBe(404);
  });

  test("keeps provider_settings and managed_channels (off unless asked for)", async () => {
    expect((await j.api("GET", "/integrations/cal-1")).body.data).toMatchObject({
      managed_channels: false,
      provider_settings: {},
    });
    const mail = await j.api("POST", "/integrations", {
      unique_key: "mail-managed",
      provider: "google-mail",
      provider_settings: { pubsub_topic: "projects/p/topics/t" },
      managed_channels: true,
    });
    expect(mail.status).toBe(200);
    expect(mail.body.data).toMatchObject({
      managed_channels: true,
      provider_settings: { pubsub_topic: "projects/p/topics/t" },
    });
    const off = await j.api("PATCH", "/integrations/mail-managed", { managed_channels: false });
    expect(off.body.data.managed_channels).toBe(false);
    expect(off.body.data.provider_settings).toEqual({ pubsub_topic: "projects/p/topics/t" });
    const bad = await j.api("PATCH", "/integrations/mail-managed", { managed_channels: "yes" });
    expect(bad.status).toBe(400);
  });

  test("lists provider templates with their scope catalogue and sensitivity", async () => {
    const res = await j.api("GET", "/providers");
    expect(res.status).toBe(200);
    const mail = res.body.data.find((p: { name: string }) => p.name === "google-mail");
    expect(mail.proxy.base_url).toBe("https://gmail.googleapis.com");
    expect(mail.scopes.find((s: { name: string }) => s.name === "https://mail.google.com/").sensitivity).toBe(
      "restricted",
    );
    expect(mail.scopes.find((s: { name: string }) => s.name === "email").sensitivity).toBe("basic");
    const cal = res.body.data.find((p: { name: string }) => p.name === "google-calendar");
    expect(cal.proxy.base_url).toBe("https://www.googleapis.com");
    expect(cal.authorization_params).toMatchObject({ access_type: "offline", prompt: "consent" });
    expect(cal.webhooks.headers.resourceUri).toBe("x-goog-resource-uri");
  });

  test("filters provider templates with Nango's search, by part of the name in any case", async () => {
    const names = async (q: string) =>
      (await j.api("GET", `/providers?search=${q}`)).body.data.map((p: { name: string }) => p.name);
    expect(await names("GOOGLE-MAIL")).toEqual(["google-mail"]);
    expect(await names("google")).toEqual(expect.arrayContaining(["google-calendar", "google-mail"]));
    expect(await names("g.*l")).toEqual([]);
    const bad = await j.api("GET", "/providers?colour=red");
    expect(bad.body.error.errors).toEqual([{ location: "query", path: "colour", message: "is not a known parameter" }]);
  });
});
