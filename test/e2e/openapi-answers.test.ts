import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { GatewayClients } from "@junction/gateway/clients";
import { createGateway } from "@junction/gateway/gateway";
import type { ErrorCode } from "@junction/gateway/openapi/error-codes";
import { documentedErrors, errorBody, statusOnRoute } from "@junction/gateway/openapi/openapi-document";
import { Router } from "@junction/gateway/router";
import { createLogger } from "@junction/platform";
import { z } from "zod";
import { type ApiResponse, startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { onEventSource, syncSource } from "./scripts-kit.ts";

// Syncs and actions run in sandbox processes: slow under a loaded machine.
setDefaultTimeout(60_000);

// The documented routes, as the OpenAPI document is built from them (no service is called).
const router = new Router().add(
  ...createGateway({
    clients: {} as GatewayClients,
    baseUrl: "http://j.test",
    logger: createLogger({ sink: () => {} }),
  }).routes(),
);

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
});
afterAll(async () => {
  await j.close();
});

/**
 * Calls the route and checks its answer against its doc: a success against the schema of its status,
 * with no field the schema does not name; an error against the error body, its code one the route
 * documents, at that code's status.
 */
async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await j.api(method, path, body, headers);
  expectDocumented(method, path, res);
  return res;
}

function expectDocumented(method: string, path: string, res: ApiResponse): void {
  const found = router.match(method, new URL(path, "http://j.test").pathname);
  if ("allowed" in found) throw new Error(`${method} ${path} is not routed`);
  const { route } = found;
  const doc = route.doc;
  if (!doc) throw new Error(`${method} ${route.pattern} has no doc`);
  const where = `${method} ${route.pattern} → ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 400) {
    const parsed = errorBody.strict().parse(res.body);
    expect(parsed).toEqual(res.body);
    const code = parsed.error.code as ErrorCode;
    expect([...documentedErrors(route, doc)], where).toContain(code);
    expect(statusOnRoute(doc, code), where).toBe(res.status);
    return;
  }
  const schema = doc.responses[res.status];
  if (!(schema instanceof z.ZodType)) throw new Error(`no JSON answer documented: ${where}`);
  const result = schema.safeParse(res.body);
  if (!result.success) throw new Error(`${where}\n${z.prettifyError(result.error)}`);
  // Parsing drops what the schema does not name: an undocumented field shows as a difference.
  expect(result.data, where).toEqual(res.body);
}

describe("real answers match the OpenAPI document", () => {
  test("meta, providers and integrations", async () => {
    await call("GET", "/health");
    expect((await call("GET", "/providers")).body.data.length).toBeGreaterThan(0);
    expect((await call("GET", "/providers?search=GOOGLE-CAL")).body.data.length).toBe(1);
    expect((await call("GET", "/providers/google-calendar")).body.data.name).toBe("google-calendar");
    expect((await call("GET", "/providers/nope")).body.error.code).toBe("unknown_provider");
    await call("POST", "/integrations", {
      unique_key: "cal",
      provider: "google-calendar",
      credentials: { type: "OAUTH2", client_id: "cid", client_secret: "secret", scopes: "a,b" },
      upstream_overrides: { base_url: "https://calendar.example.com" },
    });
    await call("POST", "/integrations", { unique_key: "plain", provider: "google-calendar", forward_webhooks: false });
    await call("GET", "/integrations");
    const full = await call("GET", "/integrations/cal?include=webhook&include=credentials");
    expect(full.body.data.credentials.client_secret_set).toBe(true);
    await call("PATCH", "/integrations/plain", { display_name: "Plain" });
    await call("GET", "/integrations/cal/test-mode");
    await call("GET", "/integrations/cal/consent");
    expect((await call("POST", "/integrations", { unique_key: "x" })).body.error.code).toBe("invalid_body");
    expect((await call("GET", "/integrations/nope")).status).toBe(404);
    expect((await call("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" })).status).toBe(409);
    expect((await call("GET", "/integrations", undefined, { authorization: "" })).status).toBe(401);
  });

  test("connections and their metadata", async () => {
    const imported = await call("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "alice",
      metadata: { team: "core" },
      credentials: {
        type: "OAUTH2",
        access_token: "tok",
        refresh_token: "rtok",
        expires_at: "2030-01-01T00:00:00Z",
        raw: { refresh_token: "rtok", scope: "a" },
      },
      end_user: { id: "u1", email: "alice@example.com", tags: { Plan: "pro" } },
      tags: { region: "eu" },
    });
    // The import answers the credentials' type and expiry, no token.
    expect(imported.body.credentials).toEqual({ type: "OAUTH2", expires_at: "2030-01-01T00:00:00.000Z" });
    const aliceTags = { end_user_id: "u1", end_user_email: "alice@example.com", plan: "pro", region: "eu" };
    expect(imported.body.tags).toEqual(aliceTags);
    const badTags = await call("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "dora",
      credentials: { type: "OAUTH2", access_token: "tok" },
      tags: { "1st": "x" },
    });
    expect(badTags.body.error.code).toBe("invalid_tags");
    const listed = await call("GET", "/connections?integrationId=cal");
    expect(listed.body.connections.map((c: { tags: unknown }) => c.tags)).toEqual([aliceTags]);
    const filtered = await call("GET", "/connections?integrationId=cal,plain&tags[end_user_id]=u1");
    expect(filtered.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["alice"]);
    expect((await call("GET", "/connections?endUserOrganizationId=org1")).body.connections).toEqual([]);
    await call("GET", "/connection?limit=1");
    const limit = await call("GET", "/connection?limit=0");
    expect(limit.body.error.errors[0]).toMatchObject({ path: "limit", location: "query" });
    const read = await call("GET", "/connection/alice?provider_config_key=cal");
    expect(read.body.credentials).toEqual({
      type: "OAUTH2",
      access_token: "tok",
      expires_at: "2030-01-01T00:00:00.000Z",
      raw: { scope: "a" },
    });
    expect(read.body.tags).toEqual(aliceTags);
    const withRefresh = await call("GET", "/connection/alice?provider_config_key=cal&refresh_token=true");
    expect(withRefresh.body.credentials.refresh_token).toBe("rtok");
    await call("POST", "/connections/metadata", { connection_id: "alice", provider_config_key: "cal", metadata: {} });
    await call("PATCH", "/connection/metadata", {
      connection_id: ["alice"],
      provider_config_key: "cal",
      metadata: { emailAddress: "alice@example.com" },
    });
    expect((await call("GET", "/connections/bob?provider_config_key=cal")).body.error.code).toBe("unknown_connection");
    expect((await call("GET", "/connections?color=red")).body.error.code).toBe("invalid_query_params");
    expect((await call("DELETE", "/integrations/cal")).body.error.code).toBe("integration_has_connections");
    await call("POST", "/connect/sessions", { end_user: { id: "u2" }, allowed_integrations: ["cal"] });
    const session = await call("POST", "/connect/sessions", {
      tags: { team: "core" },
      organization: { id: "org1", display_name: "Org" },
      allowed_integrations: ["cal"],
      integrations_config_defaults: { cal: { user_scopes: "a b", authorization_params: { hd: "example.com" } } },
      overrides: { cal: { docs_connect: "https://docs.example.com/cal", user_scopes: "c" } },
    });
    expect(session.status).toBe(201);
    const bearer = (res: ApiResponse) => ({ authorization: `Bearer ${res.body.data.token}` });
    const read1 = await call("GET", "/connect/session", undefined, bearer(session));
    expect(read1.body.data).toMatchObject({
      endUser: null,
      tags: { team: "core" },
      allowed_integrations: ["cal"],
      integrations_config_defaults: { cal: { user_scopes: "a b", authorization_params: { hd: "example.com" } } },
      overrides: { cal: { docs_connect: "https://docs.example.com/cal", user_scopes: "c" } },
    });
    const withUser = await call("POST", "/connect/sessions", {
      end_user: { id: "u3", email: "u3@example.com", tags: { plan: "pro" } },
      organization: { id: "org1" },
    });
    const read2 = await call("GET", "/connect/session", undefined, bearer(withUser));
    expect(read2.body.data.endUser).toEqual({
      id: "u3",
      display_name: null,
      email: "u3@example.com",
      tags: { plan: "pro" },
      organization: { id: "org1", display_name: null },
    });
    expect(read2.body.data.tags).toEqual({
      end_user_id: "u3",
      end_user_email: "u3@example.com",
      organization_id: "org1",
      plan: "pro",
    });
    const reconnect = await call("POST", "/connect/sessions/reconnect", {
      connection_id: "alice",
      integration_id: "cal",
    });
    const read3 = await call("GET", "/connect/session", undefined, bearer(reconnect));
    expect(read3.body.data).toMatchObject({ isReconnecting: true, allowed_integrations: ["cal"] });
    const noToken = await call("GET", "/connect/session", undefined, { authorization: "Bearer nope" });
    expect(noToken.body.error.code).toBe("unknown_connect_session_token");
    const tagsRefused = await call("POST", "/connect/sessions", { tags: { team: 1 } });
    expect(tagsRefused.body.error.code).toBe("invalid_tags");
    const overrideRefused = await call("POST", "/connect/sessions", {
      end_user: { id: "u2" },
      allowed_integrations: ["plain"],
      overrides: { cal: { user_scopes: "c" } },
    });
    expect(overrideRefused.body.error.code).toBe("override_not_allowed");
    const hookRefused = await call("POST", "/connect/sessions", {
      end_user: { id: "u2" },
      webhook_url_override: "ftp://example.com/hook",
    });
    expect(hookRefused.body.error.code).toBe("invalid_webhook_url");
    const unknown = await call("POST", "/connect/sessions/reconnect", { connection_id: "zed", integration_id: "cal" });
    expect(unknown.body.error.code).toBe("unknown_connection");
    expect((await call("GET", "/proxy/calendar/v3/users/me")).body.error.code).toBe("invalid_headers");
    await call("DELETE", "/connections/alice?provider_config_key=cal");
  });

  test("secret keys, webhook settings, the delivery log and channels", async () => {
    const created = await call("POST", "/secret-keys", { name: "ci" });
    await call("GET", "/secret-keys");
    await call("DELETE", `/secret-keys/${created.body.data.id}`);
    await call("PUT", "/webhook-settings", { endpoints: ["http://127.0.0.1:9/hook"] });
    await call("GET", "/webhook-settings");
    await call("POST", "/webhook-settings/signing-secret");
    await call("GET", "/webhook-messages?limit=5");
    await call("POST", "/webhook-messages/replay-failed", { since: 0 });
    expect((await call("GET", "/webhook-messages/msg_nope")).status).toBeGreaterThanOrEqual(400);
    await call("GET", "/channels?state=active");
    expect((await call("POST", "/webhook/env_nope/cal", "")).status).toBe(404);
  });

  test("scripts and their runs", async () => {
    await call("POST", "/scripts", {
      provider_config_key: "cal",
      name: "welcome",
      source: onEventSource("post-connection-creation", "    await nango.log('hi');"),
    });
    await call("POST", "/scripts", { provider_config_key: "cal", name: "events", source: syncSource("    return;") });
    await call("GET", "/scripts?provider_config_key=cal");
    await call("GET", "/scripts/cal/events");
    await call("GET", "/scripts/runs?limit=10");
    expect((await call("POST", "/sync/trigger", { syncs: ["events"] })).body.error.code).toBe(
      "missing_provider_config_key",
    );
    await call("DELETE", "/scripts/cal/welcome");
  });

  test("sync status and control, and actions", async () => {
    await call("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "carol",
      credentials: { type: "OAUTH2", access_token: "tok" },
    });
    const status = async () =>
      (await call("GET", "/sync/status?provider_config_key=cal&syncs=events&connection_id=carol")).body.syncs[0];
    expect(await status()).toMatchObject({ name: "events", connection_id: "carol", status: "SUCCESS" });
    const control = { syncs: ["events"], provider_config_key: "cal", connection_id: "carol" };
    await call("POST", "/sync/pause", control);
    expect((await status()).status).toBe("PAUSED");
    await call("POST", "/sync/start", control);
    // Start runs it at once; a trigger during that run would be queued (no `runs`), so let it end.
    await waitFor("the resumed run's end", async () => ((await status()).status !== "RUNNING" ? true : null));
    expect((await call("GET", "/sync/status?provider_config_key=cal&syncs=nope")).body.error.code).toBe("unknown_sync");
    const frequency = { sync_name: "events", provider_config_key: "cal", connection_id: "carol" };
    const set = await call("PUT", "/sync/update-connection-frequency", { ...frequency, frequency: "every hour" });
    expect(set.body).toEqual({ frequency: "1h" });
    const bad = await call("PUT", "/sync/update-connection-frequency", { ...frequency, frequency: "sometimes" });
    expect(bad.body.error.code).toBe("invalid_frequency");
    await call("PUT", "/sync/update-connection-frequency", { ...frequency, frequency: null });
    const trigger = await call("POST", "/sync/trigger", control);
    const runId = trigger.body.runs[0].id;
    // The ended run's status has `finishedAt` and names it.
    const ended = await waitFor("the triggered run's end", async () => {
      const s = await status();
      return s.status !== "RUNNING" && s.latest_run_id === runId && s.finishedAt ? s : null;
    });
    expect(ended.status).toBe("SUCCESS");

    const action = (body: string) =>
      `import { createAction, ActionError } from "nango";\nexport default createAction({\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;
    await call("POST", "/scripts", {
      provider_config_key: "cal",
      name: "add-one",
      source: action("return { n: input.n + 1 };"),
    });
    await call("POST", "/scripts", {
      provider_config_key: "cal",
      name: "refuse",
      source: action("throw new ActionError({ reason: 'no' });"),
    });
    const headers = { "provider-config-key": "cal", "connection-id": "carol" };
    expect((await call("POST", "/action/trigger", { action_name: "add-one", input: { n: 1 } }, headers)).body).toEqual({
      n: 2,
    });
    const refused = await call("POST", "/action/trigger", { action_name: "refuse" }, headers);
    expect(refused.body.error).toMatchObject({ code: "action_script_runtime_error", payload: { reason: "no" } });
    const queued = await call(
      "POST",
      "/action/trigger",
      { action_name: "add-one", input: { n: 41 } },
      {
        ...headers,
        "x-async": "true",
      },
    );
    expect(queued.status).toBe(202);
    const answered = await waitFor("the async action's answer", async () => {
      const res = await call("GET", queued.body.statusUrl);
      return res.status === 200 ? res : null;
    });
    expect(answered.body).toEqual({ n: 42 });
    expect((await call("GET", "/action/run_nope")).body.error.code).toBe("unknown_action_run");
    expect((await call("POST", "/action/trigger", { action_name: "nope" }, headers)).body.error.code).toBe(
      "unknown_action",
    );
    const noConnection = await call(
      "POST",
      "/action/trigger",
      { action_name: "add-one" },
      { "provider-config-key": "cal" },
    );
    expect(noConnection.body.error.code).toBe("missing_connection_id");
    const badAsync = await call(
      "POST",
      "/action/trigger",
      { action_name: "add-one" },
      { ...headers, "x-async": "maybe" },
    );
    expect(badAsync.body.error.code).toBe("invalid_headers");
  });
});
