import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

// Without the operator's allow-list, a secret key cannot point an integration at
// the operator's own network.
let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction({ env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "" } });
});
afterAll(async () => {
  await j.close();
});

describe("upstream_overrides at private addresses", () => {
  test("are a 400 naming the field, and nothing is written", async () => {
    const body = (overrides: Record<string, string>) => ({
      unique_key: "internal",
      provider: "google-calendar",
      credentials: { type: "OAUTH2", client_id: "client-abc", client_secret: "very-secret-client-secret" },
      upstream_overrides: overrides,
    });
    const res = await j.api("POST", "/integrations", body({ token_url: "http://192.168.1.10/token" }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("private_address_not_allowed");
    expect(res.body.error.errors[0].path).toBe("upstream_overrides.token_url");
    expect((await j.api("GET", "/integrations/internal")).status).toBe(404);

    expect((await j.api("POST", "/integrations", body({ base_url: "https://api.example.test" }))).status).toBe(200);
    const patched = await j.api("PATCH", "/integrations/internal", {
      upstream_overrides: { base_url: "http://127.0.0.1:1" },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.errors[0].path).toBe("upstream_overrides.base_url");
    const kept = await j.api("GET", "/integrations/internal");
    expect(JSON.stringify(kept.body.data)).toContain("https://api.example.test");
    expect(JSON.stringify(kept.body.data)).not.toContain("127.0.0.1:1");
  });
});

describe("an override saved while its host was allowed", () => {
  test("once the operator no longer allows the host, the proxy refuses it and the token is not sent", async () => {
    const seen: string[] = [];
    const upstream = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        seen.push(req.headers.get("authorization") ?? "");
        return Response.json({ ok: true });
      },
    });
    const first = await startTestJunction({ env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1" } });
    try {
      const created = await first.api("POST", "/integrations", {
        unique_key: "local",
        provider: "google-calendar",
        upstream_overrides: { base_url: `http://127.0.0.1:${upstream.port}` },
      });
      expect(created.status).toBe(200);
      const imported = await first.api("POST", "/connections", {
        provider_config_key: "local",
        connection_id: "c1",
        credentials: { type: "OAUTH2", access_token: "stored-token" },
      });
      expect(imported.status).toBe(200);
      const headers = { "provider-config-key": "local", "connection-id": "c1" };
      expect((await first.api("GET", "/proxy/calendars", undefined, headers)).status).toBe(200);
      expect(seen).toEqual(["Bearer stored-token"]);
      await first.close({ keepData: true });

      const again = await startTestJunction({ dataDir: first.dataDir, env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "" } });
      try {
        const refused = await again.api("GET", "/proxy/calendars", undefined, headers);
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe("private_address_not_allowed");
        expect(refused.text).not.toContain("stored-token");
        expect(seen).toHaveLength(1);
      } finally {
        await again.close();
      }
    } finally {
      upstream.stop(true);
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
