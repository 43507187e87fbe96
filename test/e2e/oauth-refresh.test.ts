import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { connectedId, proxyGet, revokeAndExpire, useOAuthWorld } from "./oauth-e2e-kit.ts";

const world = useOAuthWorld();
const HOUR = 3600_000;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

describe("token refresh through the running service", () => {
  test("50 concurrent calls on an expired token make one token request, and all succeed", async () => {
    const w = await world({ fake: { tokenDelayMs: 200 } });
    const id = await connectedId(w);
    await w.clock.advance(HOUR);
    const results = await Promise.all(Array.from({ length: 50 }, () => proxyGet(w, id)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.every((r) => r.body.id === "alice@example.com")).toBe(true);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
  });

  test("a revoked refresh token: error on the connection, a refresh webhook, then fast 424s; re-authorizing clears it", async () => {
    const w = await world({ env: { JUNCTION_REFRESH_FAILURE_COOLDOWN_MS: String(10 * 60_000) } });
    receiver = startWebhookReceiver();
    const settings = await w.j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] });
    expect(settings.status).toBe(200);
    const id = await connectedId(w);
    const creation = await receiver.waitFor(1);
    expect(JSON.parse(creation[0]?.body ?? "{}")).toMatchObject({ type: "auth", operation: "creation", success: true });

    const credentials = await revokeAndExpire(w, id);

    const first = await proxyGet(w, id);
    expect(first.status).toBe(424);
    expect(first.body.error.code).toBe("connection_refresh_failed");
    expect(first.body.error.message).toContain("invalid_grant");
    for (let i = 0; i < 10; i++) {
      const again = await proxyGet(w, id);
      expect(again.status).toBe(424);
    }
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);

    // GET /connection/{id} would refresh first (and answer the same 424); the list shows the errors.
    const [conn] = (await w.j.api("GET", `/connections?connectionId=${id}`)).body.connections;
    expect(conn.errors).toHaveLength(1);
    expect(conn.errors[0]).toMatchObject({ type: "refresh_failed" });
    expect(conn.errors[0].message).toMatch(/revoked this app's access/);

    const refreshHook = await receiver.waitFor(2);
    const body = JSON.parse(refreshHook[1]?.body ?? "{}");
    expect(body).toMatchObject({
      type: "auth",
      operation: "refresh",
      success: false,
      connectionId: id,
      providerConfigKey: "cal",
      authMode: "OAUTH2",
      error: { type: "invalid_grant" },
    });
    expect(body.error.description).toMatch(/authorize again/);

    const again = await w.j.api("POST", "/connect/sessions/reconnect", { connection_id: id, integration_id: "cal" });
    expect((await w.callback(await w.authorize("cal", again.body.data.token))).code).toBe("connected");
    expect((await w.j.api("GET", `/connection/${id}?provider_config_key=cal`)).body.errors).toEqual([]);
    const override = await receiver.waitFor(3);
    expect(JSON.parse(override[2]?.body ?? "{}")).toMatchObject({
      operation: "override",
      success: true,
      connectionId: id,
    });
    expect((await proxyGet(w, id)).status).toBe(200);
    expect(w.j.logLines.join("\n")).not.toContain(credentials?.refreshToken as string);
  });
});
