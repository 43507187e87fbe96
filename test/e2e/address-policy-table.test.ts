import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

/**
 * One table: URL spellings × every place a URL enters, on an instance that allows no private host. Each
 * is refused 400 `private_address_not_allowed` (a scheme other than http(s): a 400, and the policy's code
 * where the policy judges the scheme) and nothing is saved.
 */
const PRIVATE = [
  "127.0.0.2:9",
  "[::1]",
  "localhost.",
  "2130706434",
  "0x7f000002",
  "0177.0.0.2",
  "127.1",
  "0.0.0.0",
  "[::ffff:127.0.0.2]",
  "169.254.169.254",
  "10.1.2.3",
  "192.168.1.1",
  "100.64.0.1",
  "[fd00::1]",
  "[fe80::1]",
];
const SCHEMES = ["file:///etc/passwd", "gopher://example.test/x", "data:,hello", "javascript:alert(1)"];

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction({
    env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "", JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "false" },
  });
  // Connections whose base URL is a connection-config value (as `{instance_url}` for Salesforce).
  const instance = {
    name: "acme-instance",
    displayName: "Acme Instance",
    authMode: "API_KEY",
    baseUrl: "{instance_url}",
    connectFields: [{ key: "instance_url", label: "Instance URL" }],
  };
  expect((await j.api("POST", "/providers", instance)).status).toBe(201);
  expect((await j.api("POST", "/integrations", { unique_key: "inst", provider: "acme-instance" })).status).toBe(200);
  expect((await j.api("POST", "/integrations", { unique_key: "sf", provider: "salesforce" })).status).toBe(200);
});
afterAll(() => j.close());

/** Each place a URL enters, and how to read back that nothing was saved. */
const PLACES: Record<
  string,
  { send: (url: string) => Promise<{ status: number; body: any }>; kept: () => Promise<void> }
> = {
  "POST /providers baseUrl": {
    send: (url) => j.api("POST", "/providers", definition({ baseUrl: url })),
    kept: async () => expect((await j.api("GET", "/providers/acme-table")).status).toBe(404),
  },
  "POST /providers tokenUrl": {
    send: (url) =>
      j.api(
        "POST",
        "/providers",
        definition({ authMode: "OAUTH2", authorizationUrl: "https://acme.test/auth", tokenUrl: url }),
      ),
    kept: async () => expect((await j.api("GET", "/providers/acme-table")).status).toBe(404),
  },
  "upstream_overrides.base_url": {
    send: (url) =>
      j.api("POST", "/integrations", {
        unique_key: "over",
        provider: "salesforce",
        upstream_overrides: { base_url: url },
      }),
    kept: async () => expect((await j.api("GET", "/integrations/over")).status).toBe(404),
  },
  "provider_settings.pubsub_jwks_url": {
    send: (url) =>
      j.api("POST", "/integrations", {
        unique_key: "mail",
        provider: "google-mail",
        provider_settings: { pubsub_jwks_url: url },
      }),
    kept: async () => expect((await j.api("GET", "/integrations/mail")).status).toBe(404),
  },
  "webhook endpoints": {
    send: (url) => j.api("PUT", "/webhook-settings", { endpoints: [url] }),
    kept: async () => expect((await j.api("GET", "/webhook-settings")).body.data.endpoints ?? []).toEqual([]),
  },
  "connection_config.instance_url on import (an operator's provider)": {
    send: (url) => importWith("inst", url),
    kept: async () => expect((await j.api("GET", "/connections/c1?provider_config_key=inst")).status).toBe(404),
  },
  "connection_config.instance_url on import (Salesforce)": {
    send: (url) => importWith("sf", url),
    kept: async () => expect((await j.api("GET", "/connections/c1?provider_config_key=sf")).status).toBe(404),
  },
};

function definition(fields: Record<string, unknown>) {
  return { name: "acme-table", displayName: "Acme", authMode: "API_KEY", baseUrl: "https://api.acme.test", ...fields };
}

function importWith(key: string, url: string) {
  return j.api("POST", "/connections", {
    provider_config_key: key,
    connection_id: "c1",
    credentials: key === "sf" ? { type: "OAUTH2", access_token: "t" } : { type: "API_KEY", apiKey: "k" },
    connection_config: { instance_url: url },
  });
}

describe("the address policy, one table: every spelling × every place", () => {
  for (const [place, { send, kept }] of Object.entries(PLACES)) {
    test(`${place}: every private spelling is refused 400 private_address_not_allowed, nothing saved`, async () => {
      for (const host of PRIVATE) {
        const res = await send(`https://${host}/x`);
        expect({ host, status: res.status, code: res.body?.error?.code }).toEqual({
          host,
          status: 400,
          code: "private_address_not_allowed",
        });
        await kept();
      }
    });

    test(`${place}: file:, gopher:, data: and javascript: URLs are refused 400, nothing saved`, async () => {
      for (const url of SCHEMES) {
        const res = await send(url);
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        // The endpoints' own rule answers first there ("must use https"); everywhere else, the policy.
        if (place !== "webhook endpoints") expect(res.body.error.code).toBe("private_address_not_allowed");
        await kept();
      }
    });
  }

  test("a URL setting must be a URL at all: a clear 400 naming it", async () => {
    for (const value of ["not a url", "/oauth2/v3/certs"]) {
      const res = await j.api("POST", "/integrations", {
        unique_key: "mail",
        provider: "google-mail",
        provider_settings: { pubsub_jwks_url: value },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_provider_setting");
      expect(res.body.error.errors[0].path).toContain("pubsub_jwks_url");
    }
  });

  test("a built-in provider cannot be redefined over the API", async () => {
    const res = await j.api("POST", "/providers", definition({ name: "salesforce", baseUrl: "https://api.acme.test" }));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("provider_is_built_in");
    expect((await j.api("GET", "/providers/salesforce")).body.data.display_name).not.toBe("Acme");
  });

  test("CR, LF and NUL in a definition's header names and values, and a non-https docs link, are refused", async () => {
    for (const fields of [
      { proxyHeaders: { "X-Version": "1\r\nX-Injected: yes" } },
      { proxyHeaders: { "X-Version": "1\u0000" } },
      { apiKey: { in: "header", name: "X-Key\n", prefix: "" } },
      { apiKey: { in: "header", name: "X-Key", prefix: "Token\r" } },
      { docsUrl: "javascript:alert(1)" },
      { docsUrl: "http://docs.acme.test" },
      { connectFields: [{ key: "apiKey", label: "Key", docsUrl: "data:text/html,hi" }] },
    ]) {
      const res = await j.api("POST", "/providers", definition(fields));
      expect({ fields, status: res.status }).toEqual({ fields, status: 400 });
      expect(res.body.error.code).toBe("invalid_provider_definition");
    }
    expect((await j.api("GET", "/providers/acme-table")).status).toBe(404);
  });
});

describe("the address policy when fetched: a DNS name resolving to a private address (a test resolver)", () => {
  let d: TestJunction;
  const lookups: string[] = [];
  beforeAll(async () => {
    d = await startTestJunction({
      env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "", JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "false" },
      lookup: async (host) => {
        lookups.push(host);
        return host === "internal.acme.test" ? ["10.0.0.7"] : ["93.184.216.34"];
      },
    });
  });
  afterAll(() => d.close());

  test("the proxy: an override saved as a name is refused when it resolves to 10.0.0.7; the token is not sent", async () => {
    const created = await d.api("POST", "/integrations", {
      unique_key: "named",
      provider: "google-calendar",
      upstream_overrides: { base_url: "https://internal.acme.test" },
    });
    expect(created.status).toBe(200);
    const imported = await d.api("POST", "/connections", {
      provider_config_key: "named",
      connection_id: "c1",
      credentials: { type: "OAUTH2", access_token: "stored-token" },
    });
    expect(imported.status).toBe(200);
    const res = await d.api("GET", "/proxy/x", undefined, { "provider-config-key": "named", "connection-id": "c1" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("private_address_not_allowed");
    expect(res.text).not.toContain("stored-token");
    expect(lookups).toContain("internal.acme.test");
  });

  test("a push's JWKS on such a name is not fetched: 503 naming no host", async () => {
    const created = await d.api("POST", "/integrations", {
      unique_key: "mail",
      provider: "google-mail",
      provider_settings: { pubsub_jwks_url: "https://internal.acme.test/certs", pubsub_audience: "aud" },
    });
    expect(created.status).toBe(200);
    const webhookUrl = new URL(created.body.data.webhook_url as string);
    const res = await fetch(`${d.url}${webhookUrl.pathname}`, {
      method: "POST",
      headers: { authorization: "Bearer a.b.c", "content-type": "application/json" },
      body: JSON.stringify({ message: { data: "e30=", messageId: "m1" }, subscription: "s" }),
    });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).toContain("pubsub_keys_unavailable");
    expect(text).not.toContain("internal.acme.test");
    expect(text).not.toContain("10.0.0.7");
  });
});
