import { METADATA_KEY_RULES, matchKeyMetadata } from "@junction/providers";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { ManualClock, newId } from "@junction/platform";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { KINDS, seedChannelKinds } from "./channel-kinds-kit.ts";

// The dashboard's server side over HTTP: its login, what answers without a session (nothing but the
// login page and the stylesheet), the CSRF rule on writes, /dashboard/api/*, and the /channels REST
// routes it reads.

interface Login {
  cookie: string;
  csrf: string;
}

async function login(j: TestJunction, key = TEST_SECRET_KEY): Promise<Login> {
  const res = await fetch(`${j.url}/dashboard/login`, {
    method: "POST",
    body: new URLSearchParams({ secret_key: key }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const shell = await (await fetch(`${j.url}/dashboard`, { headers: { cookie } })).text();
  const csrf = /name="junction-csrf" content="([^"]+)"/.exec(shell)?.[1] ?? "";
  expect(csrf).not.toBe("");
  return { cookie, csrf };
}

const dash = (j: TestJunction, s: Login | null, method: string, path: string, body?: unknown, extra = {}) =>
  fetch(`${j.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(s ? { cookie: s.cookie } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...extra,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

let j: TestJunction;
let s: Login;
beforeAll(async () => {
  j = await startTestJunction();
  s = await login(j);
});
afterAll(() => j.close());

describe("dashboard login", () => {
  test("/ and /dashboard send a browser without a session to the login page", async () => {
    expect((await dash(j, null, "GET", "/")).headers.get("location")).toBe("/dashboard");
    const res = await dash(j, null, "GET", "/dashboard");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
    const page = await dash(j, null, "GET", "/dashboard/login");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('name="secret_key"');
  });

  test("a wrong, empty or oversized key gets no session; the key never comes back", async () => {
    for (const secret_key of ["jct_sk_wrong", ""]) {
      const res = await fetch(`${j.url}/dashboard/login`, {
        method: "POST",
        body: new URLSearchParams({ secret_key }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await res.text()).not.toContain("jct_sk_wrong");
    }
    const big = await fetch(`${j.url}/dashboard/login`, {
      method: "POST",
      body: new URLSearchParams({ secret_key: "x".repeat(5000) }),
    });
    expect(big.status).toBe(400);
    expect((await big.json()).error.code).toBe("invalid_body");
  });

  test("a login posted from another site is refused", async () => {
    const res = await fetch(`${j.url}/dashboard/login`, {
      method: "POST",
      body: new URLSearchParams({ secret_key: TEST_SECRET_KEY }),
      headers: { origin: "https://evil.example" },
      redirect: "manual",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  test("the right key sets a signed session cookie that holds no key, and logs nothing secret", async () => {
    const res = await fetch(`${j.url}/dashboard/login`, {
      method: "POST",
      body: JSON.stringify({ secret_key: TEST_SECRET_KEY }),
      headers: { "content-type": "application/json" },
      redirect: "manual",
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^junction_dashboard=v1\.[\w-]+\.[\w-]+; Path=\/dashboard; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    const payload = Buffer.from(cookie.split(".")[1] as string, "base64url").toString();
    expect(payload).not.toContain(TEST_SECRET_KEY);
    expect(j.logLines.join("\n")).not.toContain(TEST_SECRET_KEY);
  });
});

describe("nothing of the dashboard without a session", () => {
  test("the app script and every dashboard API answer 401; only the stylesheet is public", async () => {
    for (const path of [
      "/dashboard/assets/app.js",
      "/dashboard/api/session",
      "/dashboard/api/integrations",
      "/dashboard/api/connections",
      "/dashboard/api/webhook-messages",
      "/dashboard/api/webhook-messages/msg_x/watch-uri-hints",
      "/dashboard/api/channels",
    ]) {
      const res = await dash(j, null, "GET", path);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect((await res.json()).error.code).toBe("dashboard_login_required");
    }
    expect((await dash(j, null, "POST", "/dashboard/api/integrations", {})).status).toBe(401);
    expect((await dash(j, null, "POST", "/dashboard/logout")).status).toBe(401);
    const forged = await dash(
      j,
      { cookie: "junction_dashboard=v1.e30.AAAA", csrf: "" },
      "GET",
      "/dashboard/api/integrations",
    );
    expect(forged.status).toBe(401);
    const css = await dash(j, null, "GET", "/dashboard/assets/dashboard.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
  });

  test("the REST API does not take the dashboard cookie in place of the secret key", async () => {
    const res = await dash(j, s, "GET", "/integrations");
    expect(res.status).toBe(401);
  });
});

describe("with a session", () => {
  test("the page carries its CSRF token and strict headers; the script is served with an ETag", async () => {
    const page = await dash(j, s, "GET", "/dashboard");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).toContain(s.csrf);
    const script = await dash(j, s, "GET", "/dashboard/assets/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await script.text()).length).toBeGreaterThan(1000);
    const etag = script.headers.get("etag") ?? "";
    expect((await dash(j, s, "GET", "/dashboard/assets/app.js", undefined, { "if-none-match": etag })).status).toBe(
      304,
    );
  });

  test("the session lists the metadata editor's known keys: the spec's, then those the providers declare", async () => {
    const session = (await (await dash(j, s, "GET", "/dashboard/api/session")).json()) as {
      data: { metadata_keys: { key: string; type: string; match_key?: string }[] };
    };
    const keys = session.data.metadata_keys;
    expect(keys.slice(0, 2).map((k) => k.key)).toEqual(["emailAddress", "email"]);
    const declared = METADATA_KEY_RULES.map((r) => ({ key: r.key, type: r.type }));
    expect(keys.slice(2).map((k) => ({ key: k.key, type: k.type }))).toEqual(declared);
    expect(keys.filter((k) => k.match_key === "watch_uris").map((k) => k.key)).toEqual([
      ...matchKeyMetadata("watch_uris"),
    ]);
  });

  test("reads go through /dashboard/api to the REST handlers; writes need the CSRF token from this origin", async () => {
    expect(await (await dash(j, s, "GET", "/dashboard/api/session")).json()).toMatchObject({
      data: { base_url: j.baseUrl, redirect_uri: `${j.baseUrl}/oauth/callback` },
    });
    const body = { unique_key: "cal", provider: "google-calendar" };
    const noToken = await dash(j, s, "POST", "/dashboard/api/integrations", body);
    expect(noToken.status).toBe(403);
    expect((await noToken.json()).error.code).toBe("csrf_token_mismatch");
    const wrongToken = await dash(j, s, "POST", "/dashboard/api/integrations", body, { "x-junction-csrf": "nope" });
    expect(wrongToken.status).toBe(403);
    const otherSite = await dash(j, s, "POST", "/dashboard/api/integrations", body, {
      "x-junction-csrf": s.csrf,
      origin: "https://evil.example",
    });
    expect(otherSite.status).toBe(403);
    expect((await j.api("GET", "/integrations")).body.data).toEqual([]);
    const created = await dash(j, s, "POST", "/dashboard/api/integrations", body, { "x-junction-csrf": s.csrf });
    expect(created.status).toBe(200);
    expect((await created.json()).data.webhook_url).toContain("/webhook/");
    const bad = await dash(
      j,
      s,
      "PUT",
      "/dashboard/api/integrations/cal/test-mode",
      { enabled: "yes" },
      { "x-junction-csrf": s.csrf },
    );
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("invalid_body");
  });

  test("the proxy and public routes are not reachable through the dashboard API", async () => {
    for (const [method, path] of [
      ["GET", "/dashboard/api/proxy/calendar/v3/users/me/calendarList/primary"],
      ["POST", "/dashboard/api/proxy/calendar/v3/calendars"],
      ["GET", "/dashboard/api/health"],
      ["GET", "/dashboard/api/connect"],
      ["GET", "/dashboard/api/integrations/cal/nothing-here"],
    ] as const) {
      const res = await dash(j, s, method, path, method === "POST" ? {} : undefined, { "x-junction-csrf": s.csrf });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });

  test("a session (always a full-access key's) manages secret keys, but never revokes its own", async () => {
    const w = { "x-junction-csrf": s.csrf };
    const created = await dash(j, s, "POST", "/dashboard/api/secret-keys", { name: "from-dashboard" }, w);
    expect(created.status).toBe(201);
    const key = (await created.json()).data;
    expect(key.secret_key).toMatch(/^jct_sk_/);
    const listed = (await (await dash(j, s, "GET", "/dashboard/api/secret-keys")).json()).data as any[];
    expect(listed.map((k) => k.name)).toContain("from-dashboard");
    expect(JSON.stringify(listed)).not.toContain(key.secret_key);
    // Without the CSRF token a write is refused, and nothing is revoked.
    expect((await dash(j, s, "DELETE", `/dashboard/api/secret-keys/${key.id}`)).status).toBe(403);
    const { data: session } = await (await dash(j, s, "GET", "/dashboard/api/session")).json();
    const own = await dash(j, s, "DELETE", `/dashboard/api/secret-keys/${session.key_id}`, undefined, w);
    expect([own.status, (await own.json()).error.code]).toEqual([409, "revoking_own_key"]);
    expect((await dash(j, s, "GET", "/dashboard/api/integrations")).status).toBe(200);
    const revoked = await dash(j, s, "DELETE", `/dashboard/api/secret-keys/${key.id}`, undefined, w);
    expect([revoked.status, Date.parse((await revoked.json()).data.revoked_at) > 0]).toEqual([200, true]);
  });

  test("a key limited to scopes opens no session; with the REST API it gets 403 insufficient_scope on keys", async () => {
    const made = await j.api("POST", "/secret-keys", { name: "ops", scopes: ["environment:integrations:*"] });
    const scoped = made.body.data.secret_key as string;
    const res = await fetch(`${j.url}/dashboard/login`, {
      method: "POST",
      body: new URLSearchParams({ secret_key: scoped }),
      redirect: "manual",
    });
    expect([res.status, res.headers.get("set-cookie")]).toEqual([403, null]);
    const bearer = { authorization: `Bearer ${scoped}` };
    for (const [method, path] of [
      ["GET", "/secret-keys"],
      ["POST", "/secret-keys"],
      ["DELETE", `/secret-keys/${made.body.data.id}`],
    ] as const) {
      const r = await j.api(method, path, method === "POST" ? { name: "escalate" } : undefined, bearer);
      expect([path, r.status, r.body.error.code]).toEqual([path, 403, "insufficient_scope"]);
    }
    // A key with the admin scope itself (environment:*) is a full-access key: it opens the dashboard.
    const admin = await j.api("POST", "/secret-keys", { name: "admin", scopes: ["environment:*"] });
    await login(j, admin.body.data.secret_key);
  });

  test("a key cannot revoke itself through the REST API either", async () => {
    const made = await j.api("POST", "/secret-keys", { name: "self" });
    const bearer = { authorization: `Bearer ${made.body.data.secret_key}` };
    const own = await j.api("DELETE", `/secret-keys/${made.body.data.id}`, undefined, bearer);
    expect([own.status, own.body.error.code, own.body.error.errors[0].path]).toEqual([409, "revoking_own_key", "id"]);
    expect((await j.api("GET", "/integrations", undefined, bearer)).status).toBe(200);
    expect((await j.api("DELETE", `/secret-keys/${made.body.data.id}`)).status).toBe(200);
  });

  test("logging out clears the cookie and ends the session", async () => {
    const mine = await login(j);
    const out = await dash(j, mine, "POST", "/dashboard/logout", undefined, { "x-junction-csrf": mine.csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await dash(j, mine, "GET", "/dashboard/api/integrations")).status).toBe(401);
    expect((await dash(j, s, "GET", "/dashboard/api/integrations")).status).toBe(200);
  });

  test("an unknown message has no hint: 404", async () => {
    const res = await dash(j, s, "GET", `/dashboard/api/webhook-messages/${newId("msg")}/watch-uri-hints`);
    expect(res.status).toBe(404);
  });
});

describe("sessions follow their key and their clock", () => {
  test("revoking the key ends its sessions; a session expires after 12 hours", async () => {
    const clock = new ManualClock(Date.now());
    const k = await startTestJunction({ clock });
    try {
      const second = await k.api("POST", "/secret-keys", { name: "dashboard" });
      const revocable = await login(k, second.body.data.secret_key);
      const longLived = await login(k);
      expect((await dash(k, revocable, "GET", "/dashboard/api/integrations")).status).toBe(200);
      expect((await k.api("DELETE", `/secret-keys/${second.body.data.id}`)).status).toBe(200);
      await clock.advance(6000);
      expect((await dash(k, revocable, "GET", "/dashboard/api/integrations")).status).toBe(401);
      expect((await dash(k, longLived, "GET", "/dashboard/api/integrations")).status).toBe(200);
      await clock.advance(12 * 3_600_000);
      expect((await dash(k, longLived, "GET", "/dashboard/api/integrations")).status).toBe(401);
      expect((await dash(k, longLived, "GET", "/dashboard")).headers.get("location")).toBe("/dashboard/login");
    } finally {
      await k.close();
    }
  });
});

describe("GET /channels and POST /channels/stop-all", () => {
  test("lists the registry with filters, and refuses bad filters", async () => {
    const env = (await j.clients.connection.getEnvironment({})).environment?.id ?? "";
    await j.api("POST", "/integrations", { unique_key: "mail", provider: "google-mail" });
    const watch = (id: string, connectionId: string) =>
      j.clients.proxy.reportChannelCall({
        call: ChannelCall.WATCH,
        environmentId: env,
        providerConfigKey: "cal",
        connectionId,
        status: 200,
        requestBody: new TextEncoder().encode(JSON.stringify({ id, type: "web_hook", address: "https://x" })),
        responseBody: new TextEncoder().encode(
          JSON.stringify({
            id,
            resourceId: `res-${id}`,
            resourceUri: "https://x/calendars/a/events",
            expiration: "4102444800000",
          }),
        ),
      });
    await watch("ghost-chan", "ghost-connection");
    await watch("other-chan", "other-connection");
    const listed = await waitFor("both channels in the registry", async () => {
      const res = await j.api("GET", "/channels?integration=cal");
      return res.body.data.length === 2 ? res.body.data : null;
    });
    expect(listed.find((c: { id: string }) => c.id === "ghost-chan")).toMatchObject({
      resource_id: "res-ghost-chan",
      connection_id: "ghost-connection",
      state: "active",
      expiration: "2100-01-01T00:00:00.000Z",
    });
    const one = await j.api("GET", "/channels?connection=other-connection&state=active");
    expect(one.body.data.map((c: { id: string }) => c.id)).toEqual(["other-chan"]);
    expect((await j.api("GET", "/channels?state=sleeping")).body.error.code).toBe("invalid_query_params");
    expect((await j.api("GET", "/channels?bogus=1")).status).toBe(400);
  });

  test("stop-all reports each channel it could not stop, with the reason, and changes nothing for them", async () => {
    const res = await j.api("POST", "/channels/stop-all", { integration: "cal" });
    expect(res.status).toBe(200);
    expect(res.body.data.stopped).toEqual([]);
    const failed = res.body.data.failed.sort((a: { channel_id: string }, b: { channel_id: string }) =>
      a.channel_id.localeCompare(b.channel_id),
    );
    expect(failed).toMatchObject([
      { channel_id: "ghost-chan", connection_id: "ghost-connection", code: "unknown_connection" },
      { channel_id: "other-chan", connection_id: "other-connection", code: "unknown_connection" },
    ]);
    expect((await j.api("GET", "/channels?integration=cal&state=active")).body.data).toHaveLength(2);
  });

  test("stop-all refuses a bad body and an unknown integration; an integration without channels stops none", async () => {
    expect((await j.api("POST", "/channels/stop-all", {})).body.error.code).toBe("invalid_body");
    const unknown = await j.api("POST", "/channels/stop-all", { integration: "nope" });
    expect(unknown.status).toBe(404);
    // Every provider has channels now (Gmail's are its mailbox watches): a mail integration has none to stop.
    const mail = await j.api("POST", "/channels/stop-all", { integration: "mail" });
    expect(mail.status).toBe(200);
    expect(mail.body.data).toMatchObject({ stopped: [], failed: [] });
    expect((await dash(j, s, "POST", "/dashboard/api/channels/stop-all", { integration: "cal" })).status).toBe(403);
  });
});

describe("credentials and the dashboard", () => {
  test("a session sees a connection without its tokens and without a refresh, and the operator's setting", async () => {
    await j.api("POST", "/integrations", { unique_key: "dash-creds", provider: "google-calendar" });
    await j.clients.connection.createConnection({
      providerConfigKey: "dash-creds",
      connectionId: "expired",
      // Expired, and the integration has no client: the API would try a refresh and fail.
      credentials: {
        type: "OAUTH2",
        accessToken: "dash-access-token",
        refreshToken: "dash-refresh",
        expiresAtMs: 1000n,
      },
    });
    const path = "/connections/expired?provider_config_key=dash-creds&refresh_token=true&force_refresh=true";
    const seen = await dash(j, s, "GET", `/dashboard/api${path}`);
    expect(seen.status).toBe(200);
    const text = await seen.text();
    expect(JSON.parse(text).credentials).toEqual({ type: "OAUTH2", expires_at: new Date(1000).toISOString() });
    expect(text).not.toContain("dash-access-token");
    expect(text).not.toContain("dash-refresh");
    const api = await j.api("GET", path);
    expect(api.body.error.code).toBe("integration_missing_credentials"); // the refresh was tried
    expect(await (await dash(j, s, "GET", "/dashboard/api/session")).json()).toMatchObject({
      data: { credential_reads: true },
    });
  });
});

describe("integration settings and the three channel kinds through the dashboard API", () => {
  const csrf = () => ({ "x-junction-csrf": s.csrf });
  test("a session edits provider settings and managed channels; bad ones answer their code", async () => {
    await seedChannelKinds(j);
    const providers = (await (await dash(j, s, "GET", "/dashboard/api/providers")).json()).data;
    const outlook = providers.find((p: { name: string }) => p.name === KINDS["kinds-outlook"].provider);
    expect(outlook.integration_settings[0]).toMatchObject({ key: "tenant", default_value: "common" });
    const path = "/dashboard/api/integrations/kinds-outlook";
    const saved = await dash(
      j,
      s,
      "PATCH",
      path,
      { provider_settings: { tenant: "organizations" }, managed_channels: true },
      csrf(),
    );
    expect(saved.status).toBe(200);
    expect((await saved.json()).data).toMatchObject({
      provider_settings: { tenant: "organizations" },
      managed_channels: true,
    });
    const bad = await dash(j, s, "PATCH", path, { provider_settings: { region: "eu" } }, csrf());
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({
      code: "unknown_provider_setting",
      errors: [
        { location: "body", path: "provider_settings.region", message: expect.stringContaining("it takes tenant") },
      ],
    });
  });

  test("channels name their kind, and the delivery log holds a forward message of each provider", async () => {
    const channels = (await (await dash(j, s, "GET", "/dashboard/api/channels")).json()).data;
    for (const [key, k] of Object.entries(KINDS)) {
      expect(channels.find((c: { provider_config_key: string }) => c.provider_config_key === key)?.kind).toBe(k.kind);
    }
    const forwards = await waitFor("a forward message per provider", async () => {
      const res = await dash(j, s, "GET", "/dashboard/api/webhook-messages?type=forward&limit=50");
      const data = (await res.json()).data as { provider_config_key: string; body: string }[];
      const mine = data.filter((m) => m.provider_config_key in KINDS);
      return mine.length >= 3 ? mine : null;
    });
    const payloadOf = (key: string) =>
      JSON.parse(forwards.find((m) => m.provider_config_key === key)?.body ?? "{}").payload;
    expect(payloadOf("kinds-mail")).toMatchObject({ emailAddress: "nobody@example.com", messageId: "kinds-msg-1" });
    expect(payloadOf("kinds-outlook")).toMatchObject({
      subscriptionId: KINDS["kinds-outlook"].channel,
      changeType: "updated",
    });
    expect(JSON.stringify(payloadOf("kinds-outlook"))).not.toContain("kinds-state");
    expect(payloadOf("kinds-cal")["x-goog-channel-id"]).toBeString();
  });
});
