import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

let j: TestJunction;
const KEY = "cal";

beforeAll(async () => {
  j = await startTestJunction();
  await j.api("POST", "/integrations", { unique_key: KEY, provider: "google-calendar" });
  await j.api("POST", "/integrations", { unique_key: "other", provider: "google-calendar" });
  for (const id of ["alice", "bob", "carol", "dave_1", "dave%1"]) {
    await j.clients.connection.createConnection({
      providerConfigKey: KEY,
      connectionId: id,
      credentials: { type: "OAUTH2", accessToken: `token-of-${id}`, refreshToken: `refresh-of-${id}`, expiresAtMs: 0n },
      metadata: { team: "core" } as JsonObject,
    });
  }
  await j.clients.connection.createConnection({ providerConfigKey: "other", connectionId: "alice" });
});
afterAll(async () => {
  await j.close();
});

describe("connections API", () => {
  for (const base of ["/connection", "/connections"]) {
    test(`${base}: lists connections newest first in Nango's shape, without credentials`, async () => {
      const res = await j.api("GET", `${base}?integrationId=${KEY}`);
      expect(res.status).toBe(200);
      expect(res.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual([
        "dave%1",
        "dave_1",
        "carol",
        "bob",
        "alice",
      ]);
      expect(res.body.connections[0]).toMatchObject({ provider: "google-calendar", provider_config_key: KEY });
      expect(res.body.connections[0].id).toMatch(/^conn_/);
      expect(typeof res.body.connections[0].created).toBe("string");
      expect(res.text).not.toContain("token-of-");
      expect(res.body.pagination).toEqual({ page: 0, limit: 100, total: 5, has_more: false });
    });

    test(`${base}: gets one connection with its access token; the refresh token only with refresh_token=true`, async () => {
      const res = await j.api("GET", `${base}/alice?provider_config_key=${KEY}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        connection_id: "alice",
        provider_config_key: KEY,
        metadata: { team: "core" },
        connection_config: {},
        errors: [],
        credentials: { type: "OAUTH2", access_token: "token-of-alice", expires_at: null, raw: {} },
      });
      expect(res.text).not.toContain("refresh-of-alice");
      const withRefresh = await j.api("GET", `${base}/alice?provider_config_key=${KEY}&refresh_token=true`);
      expect(withRefresh.body.credentials).toMatchObject({
        access_token: "token-of-alice",
        refresh_token: "refresh-of-alice",
      });
    });
  }

  test("answers exactly what @nangohq/node sends for getConnection, getToken and getMetadata", async () => {
    // packages/node-client/lib/index.ts, getConnectionDetails: axios GET with these params and headers.
    const headers = {
      accept: "application/json, text/plain, */*",
      "content-type": "application/json",
      "user-agent": "nango-node-client/0.70.1 (linux/x64; node.js/22.0.0)",
      "nango-is-sync": "false",
      "nango-is-script": "false",
      "nango-is-dry-run": "false",
    };
    for (const [refreshToken, forceRefresh] of [
      ["false", "false"], // getConnection(key, id), getToken(key, id), getMetadata(key, id)
      ["true", "false"], // getConnection(key, id, false, true)
    ]) {
      const res = await fetch(
        `${j.url}/connections/alice?provider_config_key=${KEY}&force_refresh=${forceRefresh}&refresh_token=${refreshToken}&refresh_github_app_jwt_token=false`,
        { headers: { ...headers, authorization: `Bearer ${TEST_SECRET_KEY}` } },
      );
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.credentials.access_token).toBe("token-of-alice"); // getToken
      expect(body.metadata).toEqual({ team: "core" }); // getMetadata
      expect(body.credentials.refresh_token).toBe(refreshToken === "true" ? "refresh-of-alice" : undefined);
    }
  });

  test("query errors name the parameter and where it was; body errors say body", async () => {
    const bad = await j.api("GET", `/connections/alice?provider_config_key=${KEY}&refresh_token=maybe&colour=red`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_query_params");
    expect(bad.body.error.message).toStartWith("Invalid query parameters: ");
    expect(bad.body.error.errors).toEqual([
      { location: "query", path: "refresh_token", message: expect.any(String) },
      { location: "query", path: "colour", message: "is not a known parameter" },
    ]);
    const body = await j.api("POST", "/connections", { provider_config_key: KEY, credentials: { type: "OAUTH2" } });
    expect(body.body.error.errors[0]).toMatchObject({ location: "body", path: "credentials.access_token" });
    expect(body.body.error.message).toStartWith("Invalid request body: ");
  });

  test("pages, filters by exact id across integrations, and searches ids literally", async () => {
    const page = await j.api("GET", `/connections?integrationId=${KEY}&limit=2&page=1`);
    expect(page.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["carol", "bob"]);
    expect(page.body.pagination).toEqual({ page: 1, limit: 2, total: 5, has_more: true });

    const exact = await j.api("GET", "/connections?connectionId=alice");
    expect(exact.body.connections.map((c: { provider_config_key: string }) => c.provider_config_key).sort()).toEqual([
      "cal",
      "other",
    ]);

    const search = await j.api("GET", `/connections?search=${encodeURIComponent("%")}`);
    expect(search.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["dave%1"]);
    const underscore = await j.api("GET", "/connections?search=_");
    expect(underscore.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["dave_1"]);
  });

  test("refuses bad list parameters", async () => {
    for (const q of [
      "limit=0",
      "limit=5000",
      "page=-1",
      "color=red",
      "limit=abc",
      "integrationId=cal,",
      "integrationId=,",
    ]) {
      const res = await j.api("GET", `/connections?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_query_params");
    }
  });

  test("unknown connection and unknown integration get 404 with distinct codes", async () => {
    const conn = await j.api("GET", `/connection/nobody?provider_config_key=${KEY}`);
    expect(conn.status).toBe(404);
    expect(conn.body.error.code).toBe("unknown_connection");
    const integ = await j.api("GET", "/connection/alice?provider_config_key=nope");
    expect(integ.status).toBe(404);
    expect(integ.body.error.code).toBe("unknown_provider_config");
    const missing = await j.api("GET", "/connection/alice");
    expect(missing.status).toBe(400);
    expect(missing.body.error.errors[0]).toMatchObject({ location: "query", path: "provider_config_key" });
  });

  describe("metadata", () => {
    for (const base of ["/connection/metadata", "/connections/metadata"]) {
      test(`${base}: POST sets (replaces, 201) and PATCH updates (merges, 200), echoing the request`, async () => {
        const set = await j.api("POST", base, {
          connection_id: "bob",
          provider_config_key: KEY,
          metadata: { emailAddress: "bob@example.com", extra: { nested: true } },
        });
        expect(set.status).toBe(201);
        expect(set.body).toEqual({
          connection_id: "bob",
          provider_config_key: KEY,
          metadata: { emailAddress: "bob@example.com", extra: { nested: true } },
        });
        let got = await j.api("GET", `/connection/bob?provider_config_key=${KEY}`);
        expect(got.body.metadata).toEqual({ emailAddress: "bob@example.com", extra: { nested: true } });

        const patch = await j.api("PATCH", base, {
          connection_id: "bob",
          provider_config_key: KEY,
          metadata: {
            calendarWatchResourceUris: [
              "https://www.googleapis.com/calendar/v3/calendars/bob%40example.com/events?alt=json",
            ],
          },
        });
        expect(patch.status).toBe(200);
        got = await j.api("GET", `/connection/bob?provider_config_key=${KEY}`);
        expect(got.body.metadata).toEqual({
          emailAddress: "bob@example.com",
          extra: { nested: true },
          calendarWatchResourceUris: [
            "https://www.googleapis.com/calendar/v3/calendars/bob%40example.com/events?alt=json",
          ],
        });

        // POST replaces: keys not given are gone.
        await j.api("POST", base, {
          connection_id: "bob",
          provider_config_key: KEY,
          metadata: { email: "b@example.com" },
        });
        got = await j.api("GET", `/connection/bob?provider_config_key=${KEY}`);
        expect(got.body.metadata).toEqual({ email: "b@example.com" });
      });
    }

    test("writes a list of connection ids at once", async () => {
      const res = await j.api("PATCH", "/connections/metadata", {
        connection_id: ["alice", "carol"],
        provider_config_key: KEY,
        metadata: { plan: "pro" },
      });
      expect(res.status).toBe(200);
      for (const id of ["alice", "carol"]) {
        const got = await j.api("GET", `/connection/${id}?provider_config_key=${KEY}`);
        expect(got.body.metadata).toEqual({ team: "core", plan: "pro" });
      }
    });

    test("an unknown id fails the whole call with 404 unknown_connection and writes nothing", async () => {
      const res = await j.api("POST", "/connection/metadata", {
        connection_id: ["alice", "ghost", "carol", "phantom"],
        provider_config_key: KEY,
        metadata: { wiped: true },
      });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("unknown_connection");
      expect(res.body.error.message).toContain("ghost");
      expect(res.body.error.message).toContain("phantom");
      const alice = await j.api("GET", `/connection/alice?provider_config_key=${KEY}`);
      expect(alice.body.metadata).toEqual({ team: "core", plan: "pro" });
    });

    test("a known key with a wrong type is a 400 naming the key; other keys are stored as given", async () => {
      const cases: [string, unknown][] = [
        ["calendarWatchResourceUris", "not-an-array"],
        ["calendarWatchResourceUris", ["ok", 3]],
        ["googleCalendarWatchResourceUris", ["ok", { uri: "x" }]],
        ["googleCalendarWatchResourceUris", "not-an-array"],
        ["emailAddress", 42],
        ["email", { a: 1 }],
        ["calendarChannelId", true],
        ["calendarResourceId", []],
      ];
      for (const [key, value] of cases) {
        const res = await j.api("PATCH", "/connection/metadata", {
          connection_id: "dave_1",
          provider_config_key: KEY,
          metadata: { [key]: value, harmless: 1 },
        });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe("invalid_metadata");
        expect(res.body.error.errors[0].path).toBe(`metadata.${key}`);
      }
      const dave = await j.api("GET", `/connection/dave_1?provider_config_key=${KEY}`);
      expect(dave.body.metadata).toEqual({ team: "core" });
      const free = await j.api("PATCH", "/connection/metadata", {
        connection_id: "dave_1",
        provider_config_key: KEY,
        metadata: { anything: [1, "two", { three: null }] },
      });
      expect(free.status).toBe(200);
    });

    test("holds merged metadata to 1 MiB: the PATCH that would pass it is 400 invalid_metadata, nothing written", async () => {
      const chunk = "x".repeat(600 * 1024);
      const first = await j.api("PATCH", "/connection/metadata", {
        connection_id: "carol",
        provider_config_key: KEY,
        metadata: { a: chunk },
      });
      expect(first.status).toBe(200);
      const second = await j.api("PATCH", "/connection/metadata", {
        connection_id: "carol",
        provider_config_key: KEY,
        metadata: { b: chunk },
      });
      expect(second.status).toBe(400);
      expect(second.body.error.code).toBe("invalid_metadata");
      expect(second.body.error.errors[0].path).toBe("metadata (merged into carol)");
      const carol = await j.api("GET", `/connection/carol?provider_config_key=${KEY}`);
      expect(carol.body.metadata.a).toBe(chunk);
      expect(carol.body.metadata).not.toHaveProperty("b");
      // Replacing is measured alone: a smaller set passes.
      const set = await j.api("POST", "/connection/metadata", {
        connection_id: "carol",
        provider_config_key: KEY,
        metadata: { team: "core" },
      });
      expect(set.status).toBe(201);
    });

    test("refuses malformed metadata bodies", async () => {
      const noId = await j.api("POST", "/connection/metadata", { provider_config_key: KEY, metadata: {} });
      expect(noId.status).toBe(400);
      expect(noId.body.error.errors[0].path).toBe("connection_id");
      const notObject = await j.api("POST", "/connection/metadata", {
        connection_id: "a",
        provider_config_key: KEY,
        metadata: [1],
      });
      expect(notObject.status).toBe(400);
      const unknownIntegration = await j.api("POST", "/connection/metadata", {
        connection_id: "alice",
        provider_config_key: "nope",
        metadata: {},
      });
      expect(unknownIntegration.status).toBe(404);
      expect(unknownIntegration.body.error.code).toBe("unknown_provider_config");
    });
  });

  test("deletes a connection; deleting it again is 404", async () => {
    const res = await j.api("DELETE", `/connections/carol?provider_config_key=${KEY}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const again = await j.api("DELETE", `/connections/carol?provider_config_key=${KEY}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("unknown_connection");
  });

  test("takes Nango's list filters: several integrations, endUserOrganizationId and end-user tags", async () => {
    for (const key of ["team-a", "team-b", "team-c"]) {
      await j.api("POST", "/integrations", { unique_key: key, provider: "google-calendar" });
    }
    const ann = { id: "u-ann", email: "ann@example.com", display_name: "Ann", organization: { id: "org-1" } };
    const ben = { id: "u-ben", email: "ben@example.com", display_name: "Ben", organization: { id: "org-2" } };
    for (const [key, id, endUser] of [
      ["team-a", "ann-a", ann],
      ["team-b", "ann-b", ann],
      ["team-c", "ben-c", ben],
    ] as const) {
      await j.clients.connection.createConnection({ providerConfigKey: key, connectionId: id, endUser });
    }
    const ids = async (q: string) => {
      const res = await j.api("GET", `/connections?${q}`);
      expect(res.status).toBe(200);
      return res.body.connections.map((c: { connection_id: string }) => c.connection_id).sort();
    };
    expect(await ids("integrationId=team-a,team-c")).toEqual(["ann-a", "ben-c"]);
    expect(await ids("integrationId=team-a, team-b&endUserOrganizationId=org-1")).toEqual(["ann-a", "ann-b"]);
    expect(await ids("endUserOrganizationId=org-2")).toEqual(["ben-c"]);
    // @nangohq/node's listConnections({tags: {email, displayName}}) and tags[end_user_id], tags[organization_id].
    expect(await ids("tags[end_user_email]=ann@example.com&tags[end_user_display_name]=Ann")).toEqual([
      "ann-a",
      "ann-b",
    ]);
    expect(await ids("tags[END_USER_ID]=u-ben")).toEqual(["ben-c"]);
    expect(await ids("tags[organization_id]=org-1&integrationId=team-b")).toEqual(["ann-b"]);
    // No connection holds another tag, and a tag contradicting a parameter matches nothing.
    expect(await ids("tags[plan]=pro")).toEqual([]);
    expect(await ids("tags[end_user_id]=u-ben&endUserId=u-ann")).toEqual([]);
    expect(await ids("limit=2000")).toHaveLength(8);
    const unknown = await j.api("GET", "/connections?integrationId=team-a,nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_provider_config");
    const badTag = await j.api("GET", "/connections?tags[1bad]=x");
    expect(badTag.body.error.errors[0]).toMatchObject({ location: "query", path: "tags.1bad" });
  });

  test("tokens never reach the logs, even after they were read", () => {
    const log = j.logLines.join("\n");
    expect(log).not.toContain("token-of-");
    expect(log).not.toContain("refresh-of-");
  });
});

describe("importing a connection (POST /connections)", () => {
  test("stores the credentials encrypted and returns the connection without tokens", async () => {
    const res = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "imported-1",
      metadata: { emailAddress: "imp@example.com" },
      credentials: {
        type: "OAUTH2",
        access_token: "imported-access",
        refresh_token: "imported-refresh",
        expires_at: 1_900_000_000_000,
      },
      end_user: { id: "u-9", email: "imp@example.com" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      connection_id: "imported-1",
      metadata: { emailAddress: "imp@example.com" },
      end_user: { id: "u-9", email: "imp@example.com" },
      credentials: { type: "OAUTH2", expires_at: new Date(1_900_000_000_000).toISOString() },
    });
    expect(res.text).not.toContain("imported-access");
    const creds = await j.clients.connection.getCredentials({ providerConfigKey: KEY, connectionId: "imported-1" });
    expect(creds.credentials?.accessToken).toBe("imported-access");
    expect(creds.credentials?.refreshToken).toBe("imported-refresh");
  });

  test("accepts Nango's import fields: a date-only expires_at, tags and webhook_url_override (stored); config_override ignored", async () => {
    const res = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "imported-nango",
      credentials: {
        type: "OAUTH2",
        access_token: "imported-nango-access",
        expires_at: "2031-05-04",
        config_override: { client_id: "other-client", client_secret: "other-secret" },
      },
      end_user: { id: "u-10", tags: { plan: "pro" } },
      tags: { team: "blue" },
      webhook_url_override: "https://app.example.com/hooks",
    });
    expect(res.status).toBe(200);
    expect(res.body.credentials.expires_at).toBe("2031-05-04T00:00:00.000Z");
    expect(res.body.end_user).toEqual({ id: "u-10", tags: { plan: "pro" } });
    // As a connect session's: derived from the end user, then end_user.tags, then tags.
    expect(res.body.tags).toEqual({ end_user_id: "u-10", plan: "pro", team: "blue" });
    expect(res.body.webhook_url_override).toBe("https://app.example.com/hooks");
    const listed = await j.api("GET", "/connections?tags[team]=blue&tags[plan]=pro");
    expect(listed.body.connections.map((c: { connection_id: string }) => c.connection_id)).toEqual(["imported-nango"]);
    expect(res.text).not.toContain("other-secret");
    const badTags = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "imported-bad-tags",
      credentials: { type: "OAUTH2", access_token: "x" },
      tags: { "1st": "x" },
    });
    expect(badTags.status).toBe(400);
    expect(badTags.body.error.code).toBe("invalid_tags");
    expect((await j.api("GET", `/connections?connectionId=imported-bad-tags`)).body.connections).toEqual([]);
    const badHook = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "imported-bad-hook",
      credentials: { type: "OAUTH2", access_token: "x" },
      webhook_url_override: "http://app.example.com/hooks",
    });
    expect(badHook.status).toBe(400);
    expect(badHook.body.error).toMatchObject({
      code: "invalid_webhook_url",
      errors: [{ path: "webhook_url_override" }],
    });
    expect((await j.api("GET", `/connections?connectionId=imported-bad-hook`)).body.connections).toEqual([]);
    const bad = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      credentials: { type: "OAUTH2", access_token: "x", expires_at: "soon" },
    });
    expect(bad.body.error.errors[0]).toMatchObject({ location: "body", path: "credentials.expires_at" });
  });

  test("refuses imports with bad credentials or metadata, writing nothing", async () => {
    const noToken = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "bad-1",
      credentials: { type: "OAUTH2" },
    });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error.errors[0].path).toBe("credentials.access_token");
    const badMeta = await j.api("POST", "/connections", {
      provider_config_key: KEY,
      connection_id: "bad-2",
      metadata: { emailAddress: 5 },
      credentials: { type: "OAUTH2", access_token: "x" },
    });
    expect(badMeta.status).toBe(400);
    expect(badMeta.body.error.code).toBe("invalid_metadata");
    for (const id of ["bad-1", "bad-2"]) {
      expect((await j.api("GET", `/connection/${id}?provider_config_key=${KEY}`)).status).toBe(404);
    }
  });
});
