import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// Nango's credential routes for the frontend SDK's auth(…, { credentials }) and its Connect UI:
// POST /api-auth/api-key/{integration} and /api-auth/basic/{integration} with a connect session token.

const world = useOAuthWorld();
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

/** An operator's provider of `authMode` and its integration `key`. */
async function provider(w: OAuthWorld, key: string, authMode: "API_KEY" | "BASIC"): Promise<void> {
  const name = `${key}-provider`;
  const defined = await w.j.api("POST", "/providers", {
    name,
    displayName: key,
    authMode,
    docsUrl: "https://docs.example.test/credentials",
    baseUrl: `${w.fake.url}/${key}`,
    ...(authMode === "API_KEY" ? { apiKey: { in: "header", name: "x-api-key", prefix: "" } } : {}),
    connectFields: [{ key: "region", label: "Region", docsUrl: "https://docs.example.test/region" }],
    scopes: [],
    defaultScopes: [],
  });
  if (defined.status !== 201) throw new Error(`provider: ${defined.status} ${defined.text}`);
  const integ = await w.j.api("POST", "/integrations", { unique_key: key, provider: name });
  if (integ.status !== 200) throw new Error(`integration: ${integ.status} ${integ.text}`);
}

function post(w: OAuthWorld, path: string, query: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${w.j.url}${path}${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://app.example.test", ...headers },
    body: JSON.stringify(body),
  });
}

describe("POST /api-auth/{api-key,basic}/{integration}", () => {
  test("connect with the session's tags and the params' connect fields, answer Nango's shape, and send the auth webhook", async () => {
    const w = await world();
    receiver = startWebhookReceiver();
    expect((await w.j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
    await provider(w, "keyed", "API_KEY");
    await provider(w, "basic", "BASIC");
    const token = await w.session({
      end_user: { id: "user-7" },
      tags: { project: "p-1" },
      allowed_integrations: ["keyed", "basic"],
    });
    const keyed = await post(w, "/api-auth/api-key/keyed", `?connect_session_token=${token}&params[region]=eu`, {
      apiKey: "the-key",
    });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("access-control-allow-origin")).toBe("*");
    const [keyedId] = await w.connectionIds("keyed");
    expect(await keyed.json()).toEqual({ connectionId: keyedId, providerConfigKey: "keyed" });
    const conn = await w.j.api("GET", `/connection/${keyedId}?provider_config_key=keyed`);
    expect(conn.body.connection_config).toEqual({ region: "eu" });
    expect(conn.body.tags).toMatchObject({ project: "p-1" });

    // The session token as the bearer works too (Nango's Connect UI may send it so).
    const basic = await post(
      w,
      "/api-auth/basic/basic",
      "",
      { username: "ann", password: "" },
      {
        authorization: `Bearer ${token}`,
      },
    );
    expect(basic.status).toBe(200);
    const [basicId] = await w.connectionIds("basic");
    const creds = await w.j.clients.connection.getCredentials({ providerConfigKey: "basic", connectionId: basicId });
    expect([creds.credentials?.username, creds.credentials?.password]).toEqual(["ann", ""]);

    const hooks = (await receiver.waitFor(2)).map((h) => JSON.parse(h.body));
    expect(hooks.map((h) => [h.type, h.operation, h.success, h.connectionId]).sort()).toEqual(
      [
        ["auth", "creation", true, basicId],
        ["auth", "creation", true, keyedId],
      ].sort() as never,
    );
  });

  test("a reconnect session updates its own connection", async () => {
    const w = await world();
    await provider(w, "keyed", "API_KEY");
    const token = await w.session({ end_user: { id: "u" }, allowed_integrations: ["keyed"] });
    await post(w, "/api-auth/api-key/keyed", `?connect_session_token=${token}`, { apiKey: "old-key-9f3a" });
    const [id] = await w.connectionIds("keyed");
    const reconnect = await w.j.api("POST", "/connect/sessions/reconnect", {
      end_user: { id: "u" },
      connection_id: id,
      integration_id: "keyed",
    });
    const again = await post(w, "/api-auth/api-key/keyed", `?connect_session_token=${reconnect.body.data.token}`, {
      apiKey: "new-key-7c1e",
    });
    expect(await again.json()).toEqual({ connectionId: id, providerConfigKey: "keyed" });
    expect(await w.connectionIds("keyed")).toEqual([id as string]);
    const creds = await w.j.clients.connection.getCredentials({ providerConfigKey: "keyed", connectionId: id });
    expect(creds.credentials?.apiKey).toBe("new-key-7c1e");

    // Each attempt is an `authorization` operation of the connection; a form the service refuses is one too.
    await expect(
      w.j.clients.connection.submitConnectForm({ connectSessionToken: token, providerConfigKey: "keyed", fields: {} }),
    ).rejects.toThrow();
    const ops = await waitFor("three authorization operations", async () => {
      const res = await w.j.api("GET", "/logs/operations?kind=authorization&integration=keyed");
      return res.body.data?.length >= 3 ? (res.body.data as any[]) : null;
    });
    const titles = ops.map((o) => [o.status, o.title, o.connection]);
    expect(titles).toContainEqual(["success", "keyed: connected", id]);
    expect(titles).toContainEqual(["success", "keyed: re-authorized", id]);
    const failed = ops.find((o) => o.status === "failed");
    expect(failed.end_user).toBe("u");
    // The form's own refusal (the key is empty), with the service's stable code.
    expect(failed.title).toBe("keyed: authorization failed at form: invalid_request");
    const stored = JSON.stringify(
      await Promise.all(ops.map(async (o) => (await w.j.api("GET", `/logs/operations/${o.id}`)).body)),
    );
    expect(stored).toContain('"authMode":"API_KEY"');
    expect(stored).not.toContain("old-key-9f3a");
    expect(stored).not.toContain("new-key-7c1e");
  });

  test("bad input: a clear 4xx readable by the app's origin, and nothing saved", async () => {
    const w = await world();
    await w.integration();
    await provider(w, "keyed", "API_KEY");
    await provider(w, "basic", "BASIC");
    const token = await w.session({ end_user: { id: "u" }, allowed_integrations: ["keyed", "cal"] });
    const cases: [string, string, unknown, number, string][] = [
      ["/api-auth/api-key/keyed", "", { apiKey: "k" }, 401, "unknown_connect_session_token"],
      ["/api-auth/api-key/keyed", "?connect_session_token=nope", { apiKey: "k" }, 401, "unknown_connect_session_token"],
      ["/api-auth/api-key/basic", `?connect_session_token=${token}`, { apiKey: "k" }, 403, "integration_not_allowed"],
      ["/api-auth/api-key/cal", `?connect_session_token=${token}`, { apiKey: "k" }, 400, "invalid_auth_mode"],
      [
        "/api-auth/basic/keyed",
        `?connect_session_token=${token}`,
        { username: "a", password: "b" },
        400,
        "invalid_auth_mode",
      ],
      ["/api-auth/api-key/keyed", `?connect_session_token=${token}`, { apiKey: "" }, 400, "invalid_body"],
      ["/api-auth/api-key/keyed", `?connect_session_token=${token}`, { apiKey: "k", x: 1 }, 400, "invalid_body"],
      [
        "/api-auth/api-key/keyed",
        `?connect_session_token=${token}&connection_id=c1`,
        { apiKey: "k" },
        400,
        "invalid_query_params",
      ],
    ];
    for (const [path, query, body, status, code] of cases) {
      const res = await post(w, path, query, body);
      expect({ path, query, status: res.status, code: ((await res.json()) as any).error.code }).toEqual({
        path,
        query,
        status,
        code,
      });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    expect(await w.connectionIds("keyed")).toEqual([]);
    const preflight = await fetch(`${w.j.url}/api-auth/api-key/keyed`, { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
  });
});
