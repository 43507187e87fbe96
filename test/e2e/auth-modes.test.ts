import { describe, expect, test } from "bun:test";
import { KEY, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

const apiKeyProvider = (placement: Record<string, unknown> | undefined) => () => ({
  authMode: "API_KEY",
  authorizationUrl: undefined,
  tokenUrl: undefined,
  scopes: [],
  defaultScopes: [],
  ...(placement ? { apiKey: placement } : {}),
  connectFields: [{ key: "apiKey", label: "API key", docsUrl: "https://docs.acme.test/keys", secret: true }],
});

const importConnection = (w: Awaited<ReturnType<typeof world>>, credentials: Record<string, unknown>) =>
  w.j.api("POST", "/connections", { provider_config_key: KEY, connection_id: "c1", credentials });

describe("API_KEY connections, imported", () => {
  test("the proxy sends the key as the definition places it: a header with a prefix", async () => {
    const w = await world({
      definition: apiKeyProvider({ in: "header", name: "X-Api-Key", prefix: "Token " }),
      integrationCredentials: null,
    });
    const created = await importConnection(w, { type: "API_KEY", apiKey: "sk_live_secret_key_1" });
    expect(created.status).toBe(200);
    const echo = await w.proxyEcho("c1");
    expect(echo.status).toBe(200);
    expect(echo.body.headers["x-api-key"]).toBe("Token sk_live_secret_key_1");
    expect(echo.body.headers.authorization).toBeUndefined();
    const read = await w.j.api("GET", `/connection/c1?provider_config_key=${KEY}`);
    expect(read.body.credentials).toEqual({ type: "API_KEY", apiKey: "sk_live_secret_key_1" });
    const [summary] = (await w.j.api("GET", `/connections?connectionId=c1`)).body.connections;
    expect(summary.connection_id).toBe("c1");
    const plain = await w.j.clients.connection.getConnection({ providerConfigKey: KEY, connectionId: "c1" });
    expect(plain.connection?.credentialsType).toBe("API_KEY");
    const listed = await w.j.api("GET", "/providers/acme-variant");
    expect(listed.body.data).toMatchObject({
      auth_mode: "API_KEY",
      docs: "https://docs.acme.test/oauth",
      connect_fields: [{ key: "apiKey", label: "API key", docs_url: "https://docs.acme.test/keys", secret: true }],
    });
    expect(w.j.logLines.join("\n")).not.toContain("sk_live_secret_key_1");
  });

  test("a query parameter, after the caller's own; Bearer in Authorization by default", async () => {
    const w = await world({
      definition: apiKeyProvider({ in: "query", name: "api_key" }),
      integrationCredentials: null,
    });
    await importConnection(w, { type: "API_KEY", apiKey: "k&1" });
    const res = await w.j.api("GET", "/proxy/echo?page=2", undefined, {
      "provider-config-key": KEY,
      "connection-id": "c1",
    });
    expect(res.body.query).toEqual({ page: "2", api_key: "k&1" });

    const d = await world({ definition: apiKeyProvider(undefined), integrationCredentials: null });
    await importConnection(d, { type: "API_KEY", apiKey: "plain-key" });
    expect((await d.proxyEcho("c1")).body.headers.authorization).toBe("Bearer plain-key");
  });

  test("an empty key, or another type than the provider's, is a 400 naming the provider and the field; nothing is written", async () => {
    const w = await world({ definition: apiKeyProvider(undefined), integrationCredentials: null });
    const empty = await importConnection(w, { type: "API_KEY", apiKey: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body.error.errors[0].path).toBe("credentials.apiKey");
    expect(empty.body.error.errors[0].message).toContain('provider "acme-variant": the API key is empty');
    expect(empty.body.error.errors[0].message).toContain("https://docs.acme.test/keys");
    const wrong = await importConnection(w, { type: "BASIC", username: "u", password: "p" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.errors[0]).toMatchObject({ path: "credentials.type" });
    expect(wrong.body.error.errors[0].message).toContain("authenticates with API_KEY");
    const oauth = await importConnection(w, { type: "OAUTH2", access_token: "at" });
    expect(oauth.status).toBe(400);
    expect(await w.connectionIds()).toEqual([]);
  });
});

describe("BASIC connections, imported", () => {
  test("the proxy sends an Authorization: Basic header; the password is never logged", async () => {
    const w = await world({
      definition: () => ({ authMode: "BASIC", authorizationUrl: undefined, tokenUrl: undefined }),
      integrationCredentials: null,
    });
    const created = await importConnection(w, { type: "BASIC", username: "ACxxxx", password: "pa:ss-word-secret" });
    expect(created.status).toBe(200);
    const echo = await w.proxyEcho("c1");
    expect(echo.body.headers.authorization).toBe(`Basic ${btoa("ACxxxx:pa:ss-word-secret")}`);
    const read = await w.j.api("GET", `/connection/c1?provider_config_key=${KEY}`);
    expect(read.body.credentials).toEqual({ type: "BASIC", username: "ACxxxx", password: "pa:ss-word-secret" });
    const noUser = await w.j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "c2",
      credentials: { type: "BASIC", username: "", password: "x" },
    });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.errors[0].path).toBe("credentials.username");
    expect(w.j.logLines.join("\n")).not.toContain("pa:ss-word-secret");
  });
});
