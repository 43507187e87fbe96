import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { CALENDAR_SCOPE, type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// Nango's current connect-session fields: tags, end_user.tags, overrides, GET /connect/session, reconnect.
const world = useOAuthWorld();
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

async function session(w: OAuthWorld, path: string, body: Record<string, unknown>) {
  return w.j.api("POST", path, body);
}

describe("connect sessions with Nango's fields", () => {
  test("tags, end_user.tags and overrides reach the authorization, the connection, the list and the auth webhook", async () => {
    const w = await world();
    receiver = startWebhookReceiver();
    expect((await w.j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
    await w.integration();
    await w.integration("other");
    const created = await session(w, "/connect/sessions", {
      end_user: { id: "user-1", email: "alice@example.com", tags: { Plan: "pro" } },
      organization: { id: "org-1" },
      tags: { Project: "p-1", "team.name": "core" },
      allowed_integrations: ["cal"],
      integrations_config_defaults: { cal: { user_scopes: "profile", connection_config: { region: "eu", team: "x" } } },
      overrides: {
        cal: {
          docs_connect: "https://docs.example.test/cal",
          user_scopes: "openid",
          authorization_params: { login_hint: "alice@example.com", prompt: "none" },
          connection_config: { team: "core" },
        },
      },
    });
    expect(created.status).toBe(201);
    const token = created.body.data.token as string;
    const current = await fetch(`${w.j.url}/connect/session`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await current.json()) as any).data).toMatchObject({
      endUser: {
        id: "user-1",
        email: "alice@example.com",
        display_name: null,
        tags: { Plan: "pro" },
        organization: { id: "org-1", display_name: null },
      },
      integrations_config_defaults: {
        cal: { user_scopes: "profile", authorization_params: {}, connection_config: { region: "eu", team: "x" } },
      },
    });

    // The page of links (the older connect link's) shows the override's docs link.
    const page = await fetch(`${w.j.url}/connect?connect_session_token=${encodeURIComponent(token)}`);
    expect(await page.text()).toContain('<a class="docs" href="https://docs.example.test/cal">Docs</a>');

    const start = await w.start("cal", token);
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location") as string);
    // The override's scopes replace the defaults'; its login_hint is passed on, prompt stays the template's.
    expect(location.searchParams.get("scope")).toBe(`openid email ${CALENDAR_SCOPE}`);
    expect(location.searchParams.get("login_hint")).toBe("alice@example.com");
    expect(location.searchParams.get("prompt")).toBe("consent");
    expect((await w.callback(await w.fake.authorize(location.toString()))).code).toBe("connected");

    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.connection_config).toMatchObject({ region: "eu", team: "core" });
    const tags = {
      end_user_id: "user-1",
      end_user_email: "alice@example.com",
      organization_id: "org-1",
      plan: "pro",
      project: "p-1",
      "team.name": "core",
    };
    expect(conn.body.tags).toEqual(tags);
    expect(conn.body.end_user).toMatchObject({ id: "user-1", tags: { Plan: "pro" } });

    const list = (query: string) => w.j.api("GET", `/connections?${query}`);
    const found = await list("tags[team.name]=core&tags[PROJECT]=p-1");
    expect(found.status).toBe(200);
    expect(found.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual([id]);
    expect(found.body.connections[0].tags).toEqual(tags);
    expect((await list("tags[team.name]=core&tags[project]=p-2")).body.connections).toEqual([]);
    const badFilter = await list("tags[team.name]=a&tags[team.name]=b");
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.code).toBe("invalid_query_params");

    const [hook] = await receiver.waitFor(1);
    expect(JSON.parse(hook?.body ?? "{}")).toMatchObject({
      type: "auth",
      operation: "creation",
      connectionId: id,
      tags,
      endUser: { endUserId: "user-1", tags: { Plan: "pro" } },
    });
  });

  test("with tags the end user may be left out; GET /connect/session shows the session to its token's holder", async () => {
    const w = await world();
    await w.integration();
    const created = await session(w, "/connect/sessions", {
      tags: { team: "core" },
      allowed_integrations: ["cal"],
      overrides: { cal: { docs_connect: "https://docs.example.test/cal" } },
    });
    expect(created.status).toBe(201);
    const token = created.body.data.token as string;
    const current = await fetch(`${w.j.url}/connect/session`, { headers: { authorization: `Bearer ${token}` } });
    expect(current.status).toBe(200);
    expect(((await current.json()) as any).data).toEqual({
      endUser: null,
      tags: { team: "core" },
      expires_at: created.body.data.expires_at,
      allowed_integrations: ["cal"],
      overrides: { cal: { docs_connect: "https://docs.example.test/cal" } },
      websocketsPath: "/",
      connectUISettings: {
        theme: { light: { primary: "#2f5bd3" }, dark: { primary: "#8fb0ff" } },
        defaultTheme: "system",
        showWatermark: false,
      },
    });
    const forged = await fetch(`${w.j.url}/connect/session`, { headers: { authorization: "Bearer jct_sk_nope" } });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as any).error.code).toBe("unknown_connect_session_token");

    expect((await w.callback(await w.authorize("cal", token))).code).toBe("connected");
    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.tags).toEqual({ team: "core" });
    expect(conn.body.end_user).toBeNull();
  });

  test("a reconnect session re-authorizes the same connection, with new tokens and the tags it gives", async () => {
    const w = await world();
    await w.integration();
    await w.callback(await w.authorize());
    const [id] = await w.connectionIds();
    const before = await w.j.clients.connection.getCredentials({
      providerConfigKey: "cal",
      connectionId: id as string,
    });
    const again = await session(w, "/connect/sessions/reconnect", {
      connection_id: id,
      integration_id: "cal",
      tags: { team: "edge" },
    });
    expect(again.status).toBe(201);
    const current = await fetch(`${w.j.url}/connect/session`, {
      headers: { authorization: `Bearer ${again.body.data.token}` },
    });
    expect(((await current.json()) as any).data).toMatchObject({ isReconnecting: true, allowed_integrations: ["cal"] });
    expect((await w.callback(await w.authorize("cal", again.body.data.token))).code).toBe("connected");
    expect(await w.connectionIds()).toEqual([id as string]);
    const after = await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id as string });
    expect(after.credentials?.accessToken).not.toBe(before.credentials?.accessToken);
    expect(after.connection?.id).toBe(before.connection?.id);
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.tags).toEqual({ team: "edge" });
  });

  test("bad tags, overrides outside allowed_integrations and a refused webhook_url_override are clear 400s that write nothing", async () => {
    const w = await world();
    await w.integration();
    await w.integration("other");
    const cases: [Record<string, unknown>, string, string][] = [
      [{ tags: { team: 5 } }, "invalid_tags", "tags.team"],
      [{ end_user: { id: "u", tags: { plan: ["pro"] } } }, "invalid_tags", "end_user.tags.plan"],
      [{ end_user: { id: "u" }, tags: { "1bad": "x" } }, "invalid_tags", "tags.1bad"],
      [{ end_user: { id: "u" }, tags: { team: "" } }, "invalid_tags", "tags.team"],
      [{ end_user: { id: "u" }, tags: { Team: "a", team: "b" } }, "invalid_tags", "tags.team"],
      [{ tags: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`t${i}`, "v"])) }, "invalid_tags", "tags"],
      [
        // 3 derived from the end user and organization + 8 = 11.
        {
          end_user: { id: "u", email: "u@example.com" },
          organization: { id: "o" },
          tags: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`t${i}`, "v"])),
        },
        "invalid_tags",
        "tags",
      ],
      [
        {
          end_user: { id: "u" },
          allowed_integrations: ["cal"],
          overrides: { other: { docs_connect: "https://d.test" } },
        },
        "override_not_allowed",
        "overrides.other",
      ],
      [{ end_user: { id: "u" }, overrides: { nope: {} } }, "invalid_body", "overrides.nope"],
      [
        // Checked by the endpoints' rules: http only to loopback (the test deployment allows private endpoints).
        { end_user: { id: "u" }, webhook_url_override: "http://hooks.example.test/in" },
        "invalid_webhook_url",
        "webhook_url_override",
      ],
      [{ end_user: { id: "u" }, webhook_url_override: "not a url" }, "invalid_webhook_url", "webhook_url_override"],
      [{ organization: { id: "o" } }, "invalid_body", "end_user"],
    ];
    for (const [body, code, path] of cases) {
      const res = await session(w, "/connect/sessions", body);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code });
      expect(res.body.error.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    await w.callback(await w.authorize());
    const [id] = await w.connectionIds();
    const reconnect = await session(w, "/connect/sessions/reconnect", {
      connection_id: id,
      integration_id: "cal",
      overrides: { other: { user_scopes: "profile" } },
    });
    expect(reconnect.status).toBe(400);
    expect(reconnect.body.error.code).toBe("override_not_allowed");
    // Only the one valid session above was ever stored: no connection besides its own.
    expect(await w.connectionIds()).toEqual([id as string]);
    expect(await w.connectionIds("other")).toEqual([]);
  });
});
