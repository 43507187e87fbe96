import { describe, expect, test } from "bun:test";
import { emailAddressHash } from "@junction/connection-service";
import { CALENDAR_SCOPE, CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";

const world = useOAuthWorld();

describe("connecting a user through the browser", () => {
  test("session → /oauth/connect → consent → /oauth/callback creates the connection and says so", async () => {
    const w = await world();
    await w.integration();
    const created = await w.j.api("POST", "/connect/sessions", {
      end_user: { id: "user-1", email: "alice@example.com", display_name: "Alice" },
      organization: { id: "org-1" },
      allowed_integrations: ["cal"],
    });
    expect(created.status).toBe(201);
    const { token, expires_at, connect_link } = created.body.data;
    expect(token).toMatch(/^jct_connect_session_/);
    expect(expires_at).toBe(new Date(w.clock.now() + 30 * 60_000).toISOString());

    // The connect link opens the Connect UI (connect-ui.browser.test.ts); the older link lists what the
    // session allows without scripts.
    expect(connect_link).toBe(`${w.j.baseUrl}/connect/?session_token=${encodeURIComponent(token)}`);
    const page = await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    const pageHtml = await page.text();
    expect(pageHtml).toContain(`/oauth/connect/cal?connect_session_token=${encodeURIComponent(token)}`);

    const start = await w.start("cal", token);
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe(w.fake.endpoints.authorizationUrl);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      redirect_uri: `${w.j.baseUrl}/oauth/callback`,
      scope: `openid email ${CALENDAR_SCOPE}`,
      access_type: "offline",
      prompt: "consent",
      code_challenge_method: "S256",
    });

    const callbackUrl = await w.fake.authorize(location.toString());
    const result = await w.callback(callbackUrl);
    expect(result.status).toBe(200);
    expect(result.code).toBe("connected");
    expect(result.html).toContain("is connected");
    expect(result.headers.get("content-type")).toContain("text/html");
    expect(result.headers.get("referrer-policy")).toBe("no-referrer");
    expect(result.headers.get("cache-control")).toBe("no-store");

    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${encodeURIComponent(id as string)}?provider_config_key=cal`);
    expect(conn.status).toBe(200);
    expect(conn.body.connection_config).toEqual({ emailAddressHash: emailAddressHash("alice@example.com") });
    expect(conn.body.end_user).toEqual({
      id: "user-1",
      email: "alice@example.com",
      display_name: "Alice",
      organization: { id: "org-1" },
    });
    expect(conn.body.credentials).toMatchObject({
      type: "OAUTH2",
      expires_at: new Date(w.clock.now() + 3599_000).toISOString(),
    });
    expect(result.html).toContain(id as string);
    expect(conn.body.credentials.access_token).toBe(
      (await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id as string }))
        .credentials?.accessToken,
    );

    // Neither the code, the state, the tokens nor the client secret reach a log line or an API answer
    // (but the access token read with GET /connection/{id}, as Nango returns it).
    const { credentials } = await w.j.clients.connection.getCredentials({
      providerConfigKey: "cal",
      connectionId: id as string,
    });
    const secrets = [
      callbackUrl.searchParams.get("code"),
      callbackUrl.searchParams.get("state"),
      credentials?.accessToken,
      credentials?.refreshToken,
      CLIENT.clientSecret,
      token.slice("jct_connect_session_".length),
    ] as string[];
    const logs = w.j.logLines.join("\n");
    for (const s of secrets) {
      expect(s.length).toBeGreaterThan(10);
      expect(logs).not.toContain(s);
      if (s !== credentials?.accessToken) expect(conn.text).not.toContain(s);
      expect(result.html).not.toContain(s);
    }
  });

  test("a reconnect session re-authorizes the same connection", async () => {
    const w = await world();
    await w.integration();
    await w.callback(await w.authorize());
    const [id] = await w.connectionIds();
    const before = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    const again = await w.j.api("POST", "/connect/sessions/reconnect", { connection_id: id, integration_id: "cal" });
    expect(again.status).toBe(201);
    const result = await w.callback(await w.authorize("cal", again.body.data.token));
    expect(result.code).toBe("connected");
    expect(result.html).toContain("connected again");
    expect(await w.connectionIds()).toEqual([id as string]);
    const after = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(after.body.id).toBe(before.body.id);
    expect(after.body.end_user).toEqual(before.body.end_user);
    // A reconnect without end_user, organization or tags leaves the connection's tags as they were.
    expect(after.body.tags).toEqual({ end_user_id: "user-1", end_user_email: "alice@example.com" });
  });
});

describe("connect sessions", () => {
  test("are refused without an end user, with unknown integrations, or without the secret key", async () => {
    const w = await world();
    await w.integration();
    const noUser = await w.j.api("POST", "/connect/sessions", { allowed_integrations: ["cal"] });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.code).toBe("invalid_body");
    const unknown = await w.j.api("POST", "/connect/sessions", {
      end_user: { id: "u" },
      allowed_integrations: ["cal", "nope"],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.errors).toEqual([
      { location: "body", path: "allowed_integrations.1", message: 'integration "nope" does not exist' },
    ]);
    const extra = await w.j.api("POST", "/connect/sessions", { end_user: { id: "u" }, surprise: 1 });
    expect(extra.status).toBe(400);
    const anonymous = await w.j.api("POST", "/connect/sessions", { end_user: { id: "u" } }, { authorization: "" });
    expect(anonymous.status).toBe(401);
  });

  test("a session cannot start an integration it does not allow, nor after it expires", async () => {
    const w = await world();
    await w.integration();
    await w.integration("other");
    const token = await w.session();
    const notAllowed = await w.start("other", token);
    expect(notAllowed.status).toBe(403);
    expect(((await notAllowed.json()) as any).error.code).toBe("integration_not_allowed");
    const asPage = await w.start("other", token, "", "text/html");
    expect(asPage.status).toBe(403);
    expect(await asPage.text()).toContain('<span id="code">integration_not_allowed</span>');

    const unknown = await w.start("cal", "jct_connect_session_forged");
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as any).error.code).toBe("unknown_connect_session_token");

    await w.clock.advance(30 * 60_000);
    const expired = await w.start("cal", token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as any).error.code).toBe("connect_session_expired");
    expect(w.fake.state.tokenRequests.total).toBe(0);
    expect(await w.connectionIds()).toEqual([]);
    expect(await w.connectionIds("other")).toEqual([]);
  });
});

describe("an integration's display name", () => {
  test("set on create, changed with PATCH, it names the integration on the connect and callback pages", async () => {
    const w = await world();
    await w.integration();
    const templateName = (await w.j.api("GET", "/integrations/cal")).body.data.display_name;
    expect(templateName).toBe((await w.j.api("GET", "/providers/google-calendar")).body.data.display_name);

    const patched = await w.j.api("PATCH", "/integrations/cal", { display_name: "Acme <Work> Calendar" });
    expect(patched.status).toBe(200);
    expect((await w.j.api("GET", "/integrations/cal")).body.data.display_name).toBe("Acme <Work> Calendar");

    const token = await w.session();
    const page = await (await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`)).text();
    const link = /<ul id="integrations"><li><a [^>]*>([^<]*)<\/a>/.exec(page)?.[1];
    expect(link).toBe("Acme &#60;Work&#62; Calendar");
    expect(page).not.toContain(templateName);

    const result = await w.callback(await w.authorize("cal", token));
    expect(result.code).toBe("connected");
    expect(result.html).toContain("Acme &#60;Work&#62; Calendar is connected");
    expect(result.html).not.toContain(templateName);
  });
});
