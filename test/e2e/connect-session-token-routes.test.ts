import { describe, expect, test } from "bun:test";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";

// The routes Nango's Connect UI calls with a connect session token as its bearer, and the Connect UI's
// page and framing policy.

const world = useOAuthWorld();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function twoIntegrations(w: Awaited<ReturnType<typeof world>>) {
  await w.integration("cal");
  const openai = await w.j.api("POST", "/integrations", { unique_key: "openai", provider: "openai" });
  expect(openai.status).toBe(200);
}

describe("session-token routes (Nango's Connect UI)", () => {
  test("GET /integrations and /providers/{provider} answer only what the session allows", async () => {
    const w = await world();
    await twoIntegrations(w);
    const token = await w.session();

    const listed = await w.j.api("GET", "/integrations", undefined, bearer(token));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((i: { unique_key: string }) => i.unique_key)).toEqual(["cal"]);
    const all = await w.j.api("GET", "/integrations");
    expect(all.body.data.map((i: { unique_key: string }) => i.unique_key).sort()).toEqual(["cal", "openai"]);

    const provider = await w.j.api("GET", "/providers/google-calendar", undefined, bearer(token));
    expect(provider.status).toBe(200);
    expect(provider.body.data).toMatchObject({ name: "google-calendar", auth_mode: "OAUTH2" });
    const other = await w.j.api("GET", "/providers/openai", undefined, bearer(token));
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("integration_not_allowed");

    // An API-key provider, in Nango's shape too (credentials, connection_config), for a session that allows it.
    const keyed = await w.session({ end_user: { id: "u2" }, allowed_integrations: ["openai"] });
    const openai = await w.j.api("GET", "/providers/openai", undefined, bearer(keyed));
    expect(openai.body.data.credentials).toEqual({ apiKey: { type: "string", title: "API key", secret: true } });
    expect(openai.body.data.connection_config).toEqual({});
  });

  test("a session token reaches no other route, and an unknown or expired one reaches nothing", async () => {
    const w = await world();
    await twoIntegrations(w);
    const token = await w.session();
    for (const [method, path] of [
      ["GET", "/connections"],
      ["GET", "/integrations/cal"],
      ["POST", "/connect/sessions"],
      ["GET", "/providers"],
    ] as const) {
      const res = await w.j.api(method, path, method === "POST" ? { end_user: { id: "x" } } : undefined, bearer(token));
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 401,
        code: "unknown_account",
      });
    }
    // A token of another deployment (its environment) is unknown here.
    const foreign = "jct_connect_session_0000000000000000000000000000000000000000";
    const unknown = await w.j.api("GET", "/integrations", undefined, bearer(foreign));
    expect([unknown.status, unknown.body.error.code]).toEqual([401, "unknown_connect_session_token"]);

    await w.clock.advance(31 * 60_000);
    for (const path of ["/integrations", "/providers/google-calendar", "/connect/session"]) {
      const expired = await w.j.api("GET", path, undefined, bearer(token));
      expect([path, expired.status, expired.body.error.code]).toEqual([path, 401, "connect_session_expired"]);
    }
  });

  test("GET /connect/session names the WebSocket path and the UI settings, as Nango's", async () => {
    const w = await world();
    await twoIntegrations(w);
    const token = await w.session();
    const res = await w.j.api("GET", "/connect/session", undefined, bearer(token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      allowed_integrations: ["cal"],
      websocketsPath: "/",
      connectUISettings: { defaultTheme: "system", showWatermark: false },
    });
    // The operator's path for the SDK's socket (Nango's NANGO_SERVER_WEBSOCKETS_PATH) is the one named.
    const moved = await world({ env: { JUNCTION_WEBSOCKETS_PATH: "/sockets/auth" } });
    await moved.integration("cal");
    const other = await moved.session();
    const named = await moved.j.api("GET", "/connect/session", undefined, bearer(other));
    expect(named.body.data.websocketsPath).toBe("/sockets/auth");
  });
});

describe("the Connect UI's page", () => {
  test("the connect link opens /connect/; the old link keeps its page; /connect redirects", async () => {
    const w = await world();
    await twoIntegrations(w);
    const created = await w.j.api("POST", "/connect/sessions", {
      end_user: { id: "user-1" },
      allowed_integrations: ["cal"],
    });
    const { token, connect_link } = created.body.data;
    expect(connect_link).toBe(`${w.j.baseUrl}/connect/?session_token=${encodeURIComponent(token)}`);
    const page = await fetch(connect_link.replace(w.j.baseUrl, w.j.url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="ui.js"></script>');
    expect(html).not.toContain(token);
    const script = await fetch(`${w.j.url}/connect/ui.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${w.j.url}/connect/ui.css`)).status).toBe(200);

    const old = await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`);
    expect(old.status).toBe(200);
    expect(await old.text()).toContain(`/oauth/connect/cal?connect_session_token=${encodeURIComponent(token)}`);

    const bare = await fetch(`${w.j.url}/connect?lang=fr`, { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/connect/?lang=fr");
  });

  test("framed only by the origins the operator allows; the dashboard by none", async () => {
    const closed = await world();
    const csp = async (url: string) => (await fetch(url)).headers.get("content-security-policy") ?? "";
    expect(await csp(`${closed.j.url}/connect/`)).toContain("frame-ancestors 'none'");

    const w = await world({
      env: { JUNCTION_CONNECT_UI_FRAME_ANCESTORS: "https://app.example.com, https://*.shop.example.com/" },
    });
    const policy = await csp(`${w.j.url}/connect/`);
    expect(policy).toContain("frame-ancestors https://app.example.com https://*.shop.example.com;");
    expect(await csp(`${w.j.url}/connect/ui.js`)).toContain("frame-ancestors https://app.example.com");
    expect(await csp(`${w.j.url}/dashboard/login`)).toContain("frame-ancestors 'none'");
    const html = await (await fetch(`${w.j.url}/connect/`)).text();
    expect(html).toContain('content="https://app.example.com https://*.shop.example.com"');
  });
});
