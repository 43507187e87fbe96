import { describe, expect, test } from "bun:test";
import { KEY, type VariationWorld, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

/** An API-key provider whose base URL holds the user's subdomain, both asked for by the connect page. */
const keyed = () => ({
  authMode: "API_KEY",
  authorizationUrl: undefined,
  tokenUrl: undefined,
  scopes: [],
  defaultScopes: [],
  apiKey: { in: "header", name: "x-api-key", prefix: "" },
  connectFields: [
    { key: "subdomain", label: "Your Acme subdomain", docsUrl: "https://docs.acme.test/subdomain" },
    { key: "apiKey", label: "Acme API key", docsUrl: "https://docs.acme.test/keys", secret: true },
  ],
});

async function openForm(w: VariationWorld, token: string) {
  const page = await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`);
  const html = await page.text();
  const href = /href="([^"]*\/connect\/form\/[^"]*)"/.exec(html)?.[1]?.replace(/&#38;/g, "&");
  if (!href) throw new Error(`no form link on the connect page: ${html}`);
  const form = await fetch(href.replace(w.j.baseUrl, w.j.url), { headers: { accept: "text/html" } });
  return { status: form.status, html: await form.text(), csp: form.headers.get("content-security-policy") ?? "" };
}

function submit(w: VariationWorld, token: string, fields: Record<string, string>) {
  return fetch(`${w.j.url}/connect/form/${KEY}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams({ connect_session_token: token, ...fields }).toString(),
  });
}

describe("the connect page's form", () => {
  test("asks for the definition's fields with their labels and links, and creates the connection the proxy uses", async () => {
    const w = await world({
      definition: (auth) => ({ ...keyed(), baseUrl: `${auth.url}/{subdomain}/api` }),
      integrationCredentials: null,
    });
    const token = await w.session();
    const form = await openForm(w, token);
    expect(form.status).toBe(200);
    expect(form.html).toContain("Your Acme subdomain");
    expect(form.html).toContain('name="apiKey" type="password"');
    expect(form.html).toContain("https://docs.acme.test/keys");
    expect(form.csp).toContain("form-action 'self'");

    const done = await submit(w, token, { subdomain: "team9", apiKey: "key-from-the-form" });
    const html = await done.text();
    expect(done.status).toBe(200);
    expect(html).toContain('<span id="code">connected</span>');
    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=${KEY}`);
    expect(conn.body.connection_config).toEqual({ subdomain: "team9" });
    const echo = await w.proxyEcho(id as string);
    expect(echo.body.path).toBe("/team9/api/echo");
    expect(echo.body.headers["x-api-key"]).toBe("key-from-the-form");
    expect(w.j.logLines.join("\n")).not.toContain("key-from-the-form");
  });

  test("an empty key or a subdomain that is not one label is refused, naming the field; nothing is written", async () => {
    const w = await world({
      definition: (auth) => ({ ...keyed(), baseUrl: `${auth.url}/{subdomain}/api` }),
      integrationCredentials: null,
    });
    const token = await w.session();
    const empty = await submit(w, token, { subdomain: "team9", apiKey: "" });
    expect(empty.status).toBe(400);
    const emptyHtml = await empty.text();
    expect(emptyHtml).toContain("apiKey provider &#34;acme-variant&#34;: the API key is empty");
    const bad = await submit(w, token, { subdomain: "evil.test/x", apiKey: "k" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("connection_config.subdomain");
    expect(await w.connectionIds()).toEqual([]);
  });

  test("a host typed into the form (an instance URL) is checked by the address policy; nothing is written", async () => {
    const w = await world({
      definition: () => ({
        ...keyed(),
        baseUrl: "{instance_url}/api",
        connectFields: [
          { key: "instance_url", label: "Your Acme instance" },
          { key: "apiKey", label: "Acme API key", secret: true },
        ],
      }),
      integrationCredentials: null,
    });
    const token = await w.session();
    for (const typed of [
      "http://127.0.0.2:9",
      "http://[::ffff:127.0.0.2]",
      "https://169.254.169.254",
      "http://2130706434",
    ]) {
      const refused = await submit(w, token, { instance_url: typed, apiKey: "k" });
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(html).toContain("connection_config.instance_url");
      expect(html).toContain("private or loopback");
    }
    expect(await w.connectionIds()).toEqual([]);
  });

  test("BASIC: user name and password by default; OAUTH2 integrations are not connected through the form", async () => {
    const w = await world({
      definition: () => ({ authMode: "BASIC", authorizationUrl: undefined, tokenUrl: undefined }),
      integrationCredentials: null,
    });
    const token = await w.session();
    const form = await openForm(w, token);
    expect(form.html).toContain('name="username" type="text"');
    expect(form.html).toContain('name="password" type="password"');
    expect((await submit(w, token, { username: "ann", password: "pw-form-secret" })).status).toBe(200);
    const [id] = await w.connectionIds();
    expect((await w.proxyEcho(id as string)).body.headers.authorization).toBe(`Basic ${btoa("ann:pw-form-secret")}`);

    const o = await world();
    const refused = await submit(o, await o.session(), { apiKey: "x" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("consent screen: open /oauth/connect/acme");
  });

  test("OAUTH2_CC: the form gets a token with the integration's client, refreshed by the same single-flight rule", async () => {
    const w = await world({ definition: () => ({ authMode: "OAUTH2_CC", authorizationUrl: undefined }) });
    const token = await w.session();
    expect((await submit(w, token, {})).status).toBe(200);
    const [id] = await w.connectionIds();
    expect(w.auth.tokenRequests.map((r) => r.grantType)).toEqual(["client_credentials"]);
    await w.clock.advance(3600_000);
    const all = await Promise.all(Array.from({ length: 10 }, () => w.proxyEcho(id as string)));
    expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(w.auth.tokenRequests.map((r) => r.grantType)).toEqual(["client_credentials", "client_credentials"]);
    expect(all[0]?.body.headers.authorization).toBe(`Bearer ${w.auth.issuedAccessTokens[1]}`);
  });

  test("OAUTH2_CC refused by the provider, or an API_KEY integration sent to the consent flow: a clear 4xx, nothing saved", async () => {
    const w = await world({ definition: () => ({ authMode: "OAUTH2_CC", authorizationUrl: undefined }) });
    w.auth.behave({ clientSecret: "rotated-upstream" });
    const refused = await submit(w, await w.session(), {});
    expect(refused.status).toBe(409);
    const html = await refused.text();
    expect(html).toContain('<span id="code">client_credentials_refused</span>');
    expect(html).toContain("invalid_client");
    expect(await w.connectionIds()).toEqual([]);

    const k = await world({ definition: keyed, integrationCredentials: null });
    const start = await k.start(await k.session());
    expect(start.status).toBe(409);
    expect(((await start.json()) as any).error.code).toBe("not_an_authorization_flow");
  });
});

describe("the form's result page", () => {
  const postTarget = (html: string) => /postMessage\(.*, ("[^"]*")\);<\/script>/.exec(html)?.[1];

  test("posts only to the app that opened the connect page, carried through the form; else to the gateway's own origin", async () => {
    const w = await world({ definition: (auth) => ({ ...keyed(), baseUrl: `${auth.url}/{subdomain}/api` }) });
    const token = await w.session();
    const app = "https://app.example.test";
    const page = await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`, {
      headers: { referer: `${app}/settings/integrations?tab=2` },
    });
    const href = /href="([^"]*\/connect\/form\/[^"]*)"/.exec(await page.text())?.[1]?.replace(/&#38;/g, "&") ?? "";
    expect(new URL(href).searchParams.get("origin")).toBe(app);
    const form = await (await fetch(href.replace(w.j.baseUrl, w.j.url), { headers: { accept: "text/html" } })).text();
    expect(form).toContain(`name="opener_origin" value="${app}"`);

    const done = await submit(w, token, { subdomain: "team9", apiKey: "k1", opener_origin: app });
    const html = await done.text();
    expect(postTarget(html)).toBe(JSON.stringify(app));
    expect(html).not.toContain('"*"');
    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=${KEY}`);
    expect(conn.body.connection_config).toEqual({ subdomain: "team9" });

    // Without it, or with something that is not exactly an origin: the gateway's own origin only.
    for (const opener of [undefined, "https://app.example.test/path", "*"]) {
      const again = await submit(w, token, {
        subdomain: "team9",
        apiKey: "k2",
        ...(opener ? { opener_origin: opener } : {}),
      });
      expect(postTarget(await again.text())).toBe(JSON.stringify(new URL(w.j.baseUrl).origin));
    }
  });
});
