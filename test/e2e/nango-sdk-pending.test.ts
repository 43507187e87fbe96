/**
 * The SDK methods whose fixes are made in other branches (helpers 1–4): these tests call
 * them exactly as Nango's docs show (docs/reference/backend/backend-sdk/node.mdx) and assert what
 * the docs say they return. They fail until those branches are merged; then they belong with
 * nango-sdk.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { ALICE, CALENDAR, CONNECTION, type SdkHarness, sdkFailure, startSdkHarness } from "./nango-sdk-kit.ts";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

const oauthWorld = useOAuthWorld();
const scriptsWorld = useScriptsWorld();

describe("Nango SDK: connection with credentials (helper 1)", () => {
  let h: SdkHarness;
  beforeAll(async () => {
    h = await startSdkHarness();
    await h.nango.setMetadata(CALENDAR, CONNECTION, { CUSTOM_KEY1: "CUSTOM_VALUE1" });
  });
  afterAll(async () => {
    await h.close();
  });

  test("getConnection returns the connection with its access token", async () => {
    const connection = await h.nango.getConnection(CALENDAR, CONNECTION);
    expect(connection).toMatchObject({
      provider_config_key: CALENDAR,
      connection_id: CONNECTION,
      metadata: { CUSTOM_KEY1: "CUSTOM_VALUE1" },
      credentials: { type: "OAUTH2", access_token: h.accessToken },
    });
    expect(typeof (connection.credentials as { expires_at?: unknown }).expires_at).toBe("string");
    expect((connection.credentials as { refresh_token?: string }).refresh_token).toBeUndefined();
  });

  test("getConnection with refreshToken = true adds the refresh token", async () => {
    const connection = await h.nango.getConnection(CALENDAR, CONNECTION, false, true);
    expect(connection.credentials).toMatchObject({
      type: "OAUTH2",
      access_token: h.accessToken,
      refresh_token: h.refreshToken,
    });
  });

  test("getConnection with forceRefresh = true refreshes the token first", async () => {
    const connection = await h.nango.getConnection(CALENDAR, CONNECTION, true);
    const token = (connection.credentials as { access_token: string }).access_token;
    expect(token).not.toBe(h.accessToken);
    // The new token works upstream.
    const got = await h.nango.get({ providerConfigKey: CALENDAR, connectionId: CONNECTION, endpoint: "/echo" });
    expect(got.data.headers.authorization).toBe(`Bearer ${token}`);
  });

  test("getToken returns the access token as a string", async () => {
    const token = await h.nango.getToken(CALENDAR, CONNECTION);
    expect(typeof token).toBe("string");
    const got = await h.nango.get({ providerConfigKey: CALENDAR, connectionId: CONNECTION, endpoint: "/echo" });
    expect(got.data.headers.authorization).toBe(`Bearer ${token}`);
  });

  test("getRawTokenResponse returns the raw token response the connection was imported with", async () => {
    await h.junction.api("POST", "/connections", {
      provider_config_key: CALENDAR,
      connection_id: "raw",
      credentials: {
        type: "OAUTH2",
        access_token: "raw-access-token",
        raw: { access_token: "raw-access-token", token_type: "Bearer", scope: "calendar" },
      },
    });
    expect(await h.nango.getRawTokenResponse(CALENDAR, "raw")).toEqual({
      access_token: "raw-access-token",
      token_type: "Bearer",
      scope: "calendar",
    });
  });

  test("getMetadata returns the connection's metadata", async () => {
    expect(await h.nango.getMetadata(CALENDAR, CONNECTION)).toEqual({ CUSTOM_KEY1: "CUSTOM_VALUE1" });
    expect(await sdkFailure(h.nango.getMetadata(CALENDAR, "nobody"))).toEqual({
      status: 404,
      code: "unknown_connection",
    });
  });
});

describe("Nango SDK: connect sessions with tags (helper 2)", () => {
  test("createConnectSession with tags: the connection carries them and listConnections filters on them", async () => {
    const w = await oauthWorld();
    await w.integration("cal");
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    const tags = { end_user_id: "user-123", end_user_email: "alice@example.com", organization_id: "org-456" };
    const { data } = await nango.createConnectSession({
      tags,
      allowed_integrations: ["cal"],
      integrations_config_defaults: { cal: { connection_config: { team: "core" } } },
    });
    expect(data.token).toMatch(/^jct_connect_session_/);
    expect(data.connect_link).toContain(data.token);
    expect(Date.parse(data.expires_at)).toBeGreaterThan(0);
    expect((await w.callback(await w.authorize("cal", data.token))).code).toBe("connected");

    const listed = await nango.listConnections({ integrationId: "cal", limit: 100, tags: { end_user_id: "user-123" } });
    expect(listed.connections).toHaveLength(1);
    expect(listed.connections[0]?.tags).toMatchObject(tags);
    expect((await nango.listConnections({ tags: { end_user_id: "someone-else" } })).connections).toEqual([]);
    const id = listed.connections[0]?.connection_id as string;

    // A reconnect session with new tags re-authorizes the same connection and updates its tags.
    const reconnect = await nango.createReconnectSession({
      connection_id: id,
      integration_id: "cal",
      tags: { ...tags, organization_id: "org-789" },
    });
    expect((await w.callback(await w.authorize("cal", reconnect.data.token))).code).toBe("connected");
    const after = await nango.listConnections({ integrationId: "cal" });
    expect(after.connections.map((c) => c.connection_id)).toEqual([id]);
    expect(after.connections[0]?.tags).toMatchObject({ organization_id: "org-789" });
  });
});

const syncSource = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  exec: async (nango) => {
    await nango.get({ endpoint: "/slow/200" });
    await nango.updateMetadata({ synced: true });
  },
});
`;

describe("Nango SDK: syncs (helper 3)", () => {
  test("triggerSync, syncStatus, pauseSync, startSync, updateSyncConnectionFrequency", async () => {
    const w = await scriptsWorld();
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    await w.deploy("calendar-sync", syncSource);
    await w.connect("alice");

    // Two triggers in a row: the second is queued behind the first, not refused (Nango queues).
    await nango.triggerSync(CAL, ["calendar-sync"], "alice");
    await nango.triggerSync(CAL, ["calendar-sync"], "alice", { reset: true });
    const runs = await w.finishedRuns({ connection_id: "alice", script: "calendar-sync" }, 2);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    expect(await nango.getMetadata(CAL, "alice")).toMatchObject({ synced: true });

    const status = await nango.syncStatus(CAL, ["calendar-sync"], "alice");
    expect(status.syncs).toHaveLength(1);
    expect(status.syncs[0]).toMatchObject({
      connection_id: "alice",
      name: "calendar-sync",
      status: "SUCCESS",
      frequency: "1d",
    });
    expect(typeof status.syncs[0]?.id).toBe("string");
    expect(typeof status.syncs[0]?.finishedAt).toBe("string");
    expect(typeof status.syncs[0]?.nextScheduledSyncAt).toBe("string");
    expect((await nango.syncStatus(CAL, "*", "alice")).syncs.map((s) => s.name)).toEqual(["calendar-sync"]);

    await nango.pauseSync(CAL, ["calendar-sync"], "alice");
    expect((await nango.syncStatus(CAL, ["calendar-sync"], "alice")).syncs[0]?.status).toBe("PAUSED");

    // Starting the schedule runs the sync at once, then on its frequency.
    await nango.startSync(CAL, ["calendar-sync"], "alice");
    expect(["RUNNING", "SUCCESS"]).toContain(
      (await nango.syncStatus(CAL, ["calendar-sync"], "alice")).syncs[0]?.status as string,
    );
    await w.finishedRuns({ connection_id: "alice", script: "calendar-sync" }, 3);

    // Nango answers the interval it read ("every hour" is 1h), not the text as given.
    expect(await nango.updateSyncConnectionFrequency(CAL, "calendar-sync", "alice", "every hour")).toEqual({
      frequency: "1h",
    });
    expect((await nango.syncStatus(CAL, ["calendar-sync"], "alice")).syncs[0]?.frequency).toBe("every hour");
    expect(await nango.updateSyncConnectionFrequency(CAL, "calendar-sync", "alice", null)).toEqual({
      frequency: "1d",
    });
  });
});

const actionSource = `import { createAction } from "nango";
export default createAction({
  description: "Who the connection's calendar belongs to",
  version: "1.0.0",
  endpoint: { method: "POST", path: "/whoami" },
  exec: async (nango, input) => {
    const res = await nango.get({ endpoint: "/calendar/v3/users/me/calendarList/primary" });
    return { greeting: input.greeting, calendar: res.data.id };
  },
});
`;

describe("Nango SDK: actions (helper 4)", () => {
  test("triggerAction runs the action for the connection and returns its output", async () => {
    const w = await scriptsWorld();
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    await w.deploy("whoami", actionSource);
    await w.connect("alice");
    expect(await nango.triggerAction(CAL, "alice", "whoami", { greeting: "hello" })).toEqual({
      greeting: "hello",
      calendar: ALICE,
    });
    expect((await sdkFailure(nango.triggerAction(CAL, "alice", "no-such-action"))).status).toBe(404);
  });
});
