import { afterEach, describe, expect, test } from "bun:test";
import { startFakeAuthorizationServer } from "@junction/providers/fake-authorization-server";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";

// An operator defines a provider Junction does not ship over the API (POST /providers),
// with the built-in catalogue's schema; it connects through the fake authorization server, proxies a call,
// and is still there after a restart (stored with the integrations).

const running: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

function fakeServer() {
  const auth = startFakeAuthorizationServer({
    behaviour: {
      clientAuthentication: "client_secret_basic",
      pkce: "required",
      scopeSeparator: ",",
      callbackParams: { realmId: "9130350" },
    },
  });
  running.push(() => auth.stop());
  return auth;
}

const definitionFor = (url: string) => ({
  name: "acme-books",
  displayName: "Acme Books",
  authMode: "OAUTH2",
  docsUrl: "https://docs.acme-books.test/oauth",
  baseUrl: `${url}/api`,
  authorizationUrl: `${url}/oauth/authorize`,
  tokenUrl: `${url}/oauth/token`,
  clientAuthentication: "client_secret_basic",
  pkce: "required",
  scopeSeparator: "comma",
  scopes: [
    { name: "books.read", description: "Read the books." },
    { name: "books.write", description: "Write the books.", sensitivity: "sensitive" },
  ],
  defaultScopes: ["books.read"],
  proxyHeaders: { "Acme-Version": "2026-01" },
  connectionConfig: [
    { key: "realmId", from: "callback", param: "realmId" },
    { key: "accountId", from: "request", url: "/me", path: "account.id" },
  ],
});

async function connect(j: TestJunction, authorize: (location: string) => Promise<URL>): Promise<string> {
  const session = await j.api("POST", "/connect/sessions", {
    end_user: { id: "user-1", email: "user@example.com" },
    allowed_integrations: ["books"],
  });
  expect(session.status).toBe(201);
  const start = await fetch(`${j.url}/oauth/connect/books?connect_session_token=${session.body.data.token}`, {
    redirect: "manual",
  });
  const location = start.headers.get("location") ?? "";
  expect(start.status).toBe(302);
  expect(new URL(location).searchParams.get("scope")).toBe("books.read");
  const callback = await authorize(location);
  const page = await fetch(`${j.url}${callback.pathname}${callback.search}`, { headers: { accept: "text/html" } });
  const html = await page.text();
  expect(/<span id="code">([^<]*)<\/span>/.exec(html)?.[1]).toBe("connected");
  const list = await j.api("GET", "/connections?integrationId=books");
  return list.body.connections[0].connection_id as string;
}

describe("POST /providers: a provider defined over the API", () => {
  test("a bad definition is refused naming the provider and each field, and nothing is stored", async () => {
    const auth = fakeServer();
    const j = await startTestJunction();
    running.push(() => j.close());
    const { tokenUrl: _t, ...noToken } = definitionFor(auth.url);
    const bad = await j.api("POST", "/providers", { ...noToken, authMode: "SAML", baseUrl: "not a url" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_provider_definition");
    expect(bad.body.error.message).toContain('Provider definition "acme-books" is invalid');
    expect(bad.body.error.message).toContain("Nothing was stored.");
    const paths = (bad.body.error.errors as { path: string; message: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(["authMode", "baseUrl"]);
    const notJson = await j.api("POST", "/providers", "[1, 2]", { "content-type": "application/json" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("invalid_provider_definition");
    expect((await j.api("GET", "/providers/acme-books")).status).toBe(404);
  });

  test("defined from scratch, it connects through the fake, proxies a call, and survives a restart", async () => {
    const auth = fakeServer();
    const data = tempDir();
    running.push(() => data.remove());
    let j = await startTestJunction({ dataDir: data.path });
    running.push(() => j.close({ keepData: true }));

    const created = await j.api("POST", "/providers", definitionFor(auth.url));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: "acme-books",
      auth_mode: "OAUTH2",
      default_scopes: ["books.read"],
    });
    const listed = await j.api("GET", "/providers?search=acme");
    expect(listed.body.data.map((p: { name: string }) => p.name)).toEqual(["acme-books"]);
    const again = await j.api("POST", "/providers", { ...definitionFor(auth.url), displayName: "Acme Books 2" });
    expect(again.status).toBe(200);

    const integration = await j.api("POST", "/integrations", {
      unique_key: "books",
      provider: "acme-books",
      credentials: { type: "OAUTH2", client_id: auth.behaviour.clientId, client_secret: auth.behaviour.clientSecret },
    });
    expect(integration.status).toBe(200);
    const id = await connect(j, (location) => auth.authorize(location));
    const connection = await j.api("GET", `/connections/${id}?provider_config_key=books`);
    expect(connection.body.connection_config).toMatchObject({ realmId: "9130350", accountId: "acct-42" });

    const proxyHeaders = { "provider-config-key": "books", "connection-id": id };
    const echo = await j.api("GET", "/proxy/ledger", undefined, proxyHeaders);
    expect(echo.status).toBe(200);
    expect(echo.body.path).toBe("/api/ledger");
    expect(echo.body.headers.authorization).toMatch(/^Bearer /);
    expect(echo.body.headers["acme-version"]).toBe("2026-01");

    await j.close({ keepData: true });
    j = await startTestJunction({ dataDir: data.path });
    const after = await j.api("GET", "/providers/acme-books");
    expect(after.status).toBe(200);
    expect(after.body.data.display_name).toBe("Acme Books 2");
    expect((await j.api("GET", "/proxy/ledger", undefined, proxyHeaders)).status).toBe(200);
  });

  test("an OAuth provider with a connect field asks it on the connect page's form, then goes to consent", async () => {
    const auth = fakeServer();
    const j = await startTestJunction();
    running.push(() => j.close());
    const definition = {
      ...definitionFor(auth.url),
      authorizationUrl: `${auth.url}/{workspace}/oauth/authorize`,
      tokenUrl: `${auth.url}/{workspace}/oauth/token`,
      baseUrl: `${auth.url}/{workspace}/api`,
      connectFields: [{ key: "workspace", label: "Workspace (the name in your address)" }],
      connectionConfig: [{ key: "realmId", from: "callback", param: "realmId" }],
    };
    expect((await j.api("POST", "/providers", definition)).status).toBe(201);
    const integration = await j.api("POST", "/integrations", {
      unique_key: "books",
      provider: "acme-books",
      credentials: { type: "OAUTH2", client_id: auth.behaviour.clientId, client_secret: auth.behaviour.clientSecret },
    });
    expect(integration.status).toBe(200);
    const session = await j.api("POST", "/connect/sessions", { end_user: { id: "user-1" } });
    const token = session.body.data.token as string;
    const form = await (await fetch(`${j.url}/connect/form/books?connect_session_token=${token}`)).text();
    expect(form).toContain("Workspace (the name in your address)");
    expect(form).toContain('name="workspace"');

    const posted = await fetch(`${j.url}/connect/form/books`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ connect_session_token: token, workspace: "team-7" }).toString(),
    });
    expect(posted.status).toBe(302);
    const location = posted.headers.get("location") ?? "";
    expect(new URL(location).pathname).toBe("/team-7/oauth/authorize");
    const callback = await auth.authorize(location);
    const page = await (await fetch(`${j.url}${callback.pathname}${callback.search}`)).text();
    expect(/<span id="code">([^<]*)<\/span>/.exec(page)?.[1]).toBe("connected");
    expect(auth.tokenRequests.at(-1)?.path).toBe("/team-7/oauth/token");

    const id = (await j.api("GET", "/connections?integrationId=books")).body.connections[0].connection_id as string;
    const connection = await j.api("GET", `/connections/${id}?provider_config_key=books`);
    expect(connection.body.connection_config).toMatchObject({ workspace: "team-7", realmId: "9130350" });
    const echo = await j.api("GET", "/proxy/ledger", undefined, {
      "provider-config-key": "books",
      "connection-id": id,
    });
    expect(echo.body.path).toBe("/team-7/api/ledger");
  });
});
