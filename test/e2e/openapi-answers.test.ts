import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { GatewayClients } from "@junction/gateway/clients";
import { createGateway } from "@junction/gateway/gateway";
import type { ErrorCode } from "@junction/gateway/openapi/error-codes";
import { documentedErrors, errorBody, statusOnRoute } from "@junction/gateway/openapi/openapi-document";
import { Router } from "@junction/gateway/router";
import { createLogger } from "@junction/platform";
import { z } from "zod";
import { type ApiResponse, startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { onEventSource, syncSource } from "./scripts-kit.ts";

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
      credentials: { type: "OAUTH2", access_token: "tok", expires_at: "2030-01-01T00:00:00Z" },
      end_user: { id: "u1", email: "alice@example.com" },
    });
    expect(imported.body.credentials.expires_at).toBe("2030-01-01T00:00:00.000Z");
    await call("GET", "/connections?integrationId=cal");
    await call("GET", "/connection?limit=1");
    await call("GET", "/connection/alice?provider_config_key=cal");
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
    await call("POST", "/connect/sessions/reconnect", { connection_id: "alice", integration_id: "cal" });
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
});
