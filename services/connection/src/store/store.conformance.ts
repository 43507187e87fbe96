import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { newId } from "@junction/platform";
import { emailAddressHash, nangoEmailAddressHash } from "../email-hash.ts";
import type { ConnectionRecord, IntegrationRecord, SecretKeyRecord } from "./records.ts";
import { oauthFlowStoreConformance } from "./oauth-store.conformance.ts";
import { secretRewriteConformance } from "./secret-rewrite.conformance.ts";
import { type ConnectionServiceStore, DuplicateKeyError, UnknownConnectionsError } from "./store.ts";

/** A fresh, empty store and how to dispose of it. */
export type StoreFactory = () => Promise<{ store: ConnectionServiceStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";
const OTHER_ENV = "env_other";
const CAL = "https://calendar.example.test/calendar/v3/calendars";

/**
 * The behaviour every ConnectionServiceStore must have, registered as bun:test tests against a fresh
 * store per test. Run by each implementation's test file.
 */
export function connectionStoreConformance(name: string, factory: StoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: ConnectionServiceStore;
    let cleanup: () => Promise<void>;
    let now = 1_767_225_600_000;
    const tick = () => (now += 1000);

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    const integration = (uniqueKey: string, over: Partial<IntegrationRecord> = {}): IntegrationRecord => {
      const at = tick();
      return {
        environmentId: ENV,
        uniqueKey,
        provider: "google-calendar",
        displayName: `Calendar ${uniqueKey}`,
        clientId: "client-id",
        clientSecretEnc: "v1:enc:secret",
        scopes: ["openid", "email"],
        overrides: { baseUrl: "http://127.0.0.1:9/upstream" },
        forwardWebhooks: true,
        useTestCredentials: false,
        providerSettings: {},
        managedChannels: false,
        createdAt: at,
        updatedAt: at,
        ...over,
      };
    };

    const connection = (
      providerConfigKey: string,
      connectionId: string,
      over: Partial<ConnectionRecord> = {},
    ): ConnectionRecord => {
      const at = tick();
      return {
        id: newId("conn", at),
        environmentId: ENV,
        providerConfigKey,
        connectionId,
        provider: "google-calendar",
        credentialsEnc: `v1:enc:${connectionId}`,
        credentialsExpiresAt: at + 3_600_000,
        connectionConfig: {},
        metadata: {},
        endUser: null,
        errors: [],
        tags: {},
        createdAt: at,
        updatedAt: at,
        ...over,
      };
    };

    const create = async (c: ConnectionRecord) => (await store.upsertConnection(c)).connection;
    const get = (pck: string, connectionId: string) => store.getConnection(ENV, pck, connectionId);
    const uris = (...paths: string[]) => ({ calendarWatchResourceUris: paths.map((p) => `${CAL}/${p}`) });
    const byUri = (pck: string, path: string) => store.findByWatchUri(ENV, pck, `${CAL}/${path}`);

    describe("environment", () => {
      test("is created once, even when asked concurrently", async () => {
        let made = 0;
        const make = () => ({ id: `env_${++made}`, name: "default", createdAt: tick() });
        const envs = await Promise.all(Array.from({ length: 8 }, () => store.getOrCreateEnvironment(make)));
        expect(new Set(envs.map((e) => e.id)).size).toBe(1);
        const before = made;
        const again = await store.getOrCreateEnvironment(make);
        expect(again).toEqual(envs[0] as (typeof envs)[number]);
        expect(made).toBe(before);
      });
    });

    describe("secret keys", () => {
      const key = (id: string, environmentId = ENV): SecretKeyRecord => ({
        id,
        environmentId,
        name: `key ${id}`,
        prefix: "sk_live_ab",
        hash: `sha256-${id}`,
        createdAt: tick(),
        revokedAt: null,
        scopes: id === "key_b" ? ["environment:proxy", "environment:mcp"] : [],
        lastUsedAt: null,
      });

      test("are inserted, listed per environment and revoked", async () => {
        const a = key("key_a");
        const b = key("key_b");
        await store.insertSecretKey(a);
        await store.insertSecretKey(b);
        await store.insertSecretKey(key("key_c", OTHER_ENV));
        expect(await store.listSecretKeys(ENV)).toEqual([a, b]);

        const at = tick();
        expect(await store.revokeSecretKey(ENV, "key_a", at)).toEqual({ ...a, revokedAt: at });
        expect(await store.listSecretKeys(ENV)).toEqual([{ ...a, revokedAt: at }, b]);
      });

      test("keep their scopes and when they were last used", async () => {
        const b = key("key_b");
        await store.insertSecretKey(b);
        const at = tick();
        await store.touchSecretKey(ENV, "key_b", at);
        await store.touchSecretKey(OTHER_ENV, "key_b", tick());
        expect(await store.listSecretKeys(ENV)).toEqual([{ ...b, lastUsedAt: at }]);
      });

      test("revoking an unknown key, or one of another environment, returns null", async () => {
        await store.insertSecretKey(key("key_c", OTHER_ENV));
        expect(await store.revokeSecretKey(ENV, "key_missing", tick())).toBeNull();
        expect(await store.revokeSecretKey(ENV, "key_c", tick())).toBeNull();
        expect((await store.listSecretKeys(OTHER_ENV))[0]?.revokedAt).toBeNull();
      });
    });

    describe("integrations", () => {
      test("are inserted, read and listed", async () => {
        const a = integration("cal-a");
        const b = integration("cal-b", {
          clientSecretEnc: null,
          overrides: {},
          forwardWebhooks: false,
          useTestCredentials: true,
          providerSettings: { tenant: "contoso.onmicrosoft.com" },
          managedChannels: true,
          strictChannels: false,
        });
        await store.insertIntegration(a);
        await store.insertIntegration(b);
        await store.insertIntegration(integration("cal-a", { environmentId: OTHER_ENV }));
        expect(await store.getIntegration(ENV, "cal-a")).toEqual(a);
        expect(await store.getIntegration(ENV, "missing")).toBeNull();
        expect(await store.listIntegrations(ENV)).toEqual([a, b]);
      });

      test("refuse a taken key", async () => {
        await store.insertIntegration(integration("cal"));
        await expect(store.insertIntegration(integration("cal"))).rejects.toBeInstanceOf(DuplicateKeyError);
      });

      test("are replaced under the same key", async () => {
        const a = integration("cal");
        await store.insertIntegration(a);
        const next = {
          ...a,
          displayName: "Renamed",
          scopes: ["email"],
          providerSettings: { tenant: "organizations" },
          managedChannels: true,
          strictChannels: true,
          updatedAt: tick(),
        };
        expect(await store.replaceIntegration(ENV, "cal", next)).toBe(true);
        expect(await store.getIntegration(ENV, "cal")).toEqual(next);
        expect(await store.replaceIntegration(ENV, "missing", { ...next, uniqueKey: "missing" })).toBe(false);
        expect(await store.getIntegration(ENV, "missing")).toBeNull();
      });

      test("rename moves their connections and watch URIs", async () => {
        const a = integration("cal");
        await store.insertIntegration(a);
        await create(connection("cal", "c1", { metadata: uris("primary") }));
        await create(connection("cal", "c2"));
        await create(connection("other", "c3", { metadata: uris("primary") }));

        expect(await store.replaceIntegration(ENV, "cal", { ...a, uniqueKey: "cal-2" })).toBe(true);
        expect(await store.getIntegration(ENV, "cal")).toBeNull();
        expect(await store.getIntegration(ENV, "cal-2")).toEqual({ ...a, uniqueKey: "cal-2" });
        expect(await get("cal", "c1")).toBeNull();
        expect((await get("cal-2", "c1"))?.providerConfigKey).toBe("cal-2");
        expect(await store.countConnections(ENV, "cal-2")).toBe(2);
        expect(await store.countConnections(ENV, "cal")).toBe(0);
        expect(await byUri("cal", "primary")).toEqual([]);
        expect(await byUri("cal-2", "primary")).toEqual(["c1"]);
        expect(await byUri("other", "primary")).toEqual(["c3"]);
      });

      test("are marked for good as holding imported email hashes", async () => {
        await store.insertIntegration(integration("cal"));
        expect((await store.getIntegration(ENV, "cal"))?.importedEmailHashes).toBeUndefined();
        await store.markImportedEmailHashes(ENV, "cal");
        await store.markImportedEmailHashes(ENV, "cal");
        await store.markImportedEmailHashes(ENV, "unknown");
        const marked = await store.getIntegration(ENV, "cal");
        expect(marked?.importedEmailHashes).toBe(true);
        await store.replaceIntegration(ENV, "cal", {
          ...(marked as IntegrationRecord),
          uniqueKey: "cal-2",
          displayName: "x",
        });
        expect((await store.getIntegration(ENV, "cal-2"))?.importedEmailHashes).toBe(true);
        expect(await store.getIntegration(ENV, "unknown")).toBeNull();
      });

      test("rename onto a taken key fails and changes nothing", async () => {
        const a = integration("cal");
        const b = integration("taken");
        await store.insertIntegration(a);
        await store.insertIntegration(b);
        await create(connection("cal", "c1"));
        await expect(store.replaceIntegration(ENV, "cal", { ...a, uniqueKey: "taken" })).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
        expect(await store.getIntegration(ENV, "cal")).toEqual(a);
        expect(await store.getIntegration(ENV, "taken")).toEqual(b);
        expect((await get("cal", "c1"))?.providerConfigKey).toBe("cal");
      });

      test("delete removes their connections and says how many", async () => {
        await store.insertIntegration(integration("cal"));
        await store.insertIntegration(integration("keep"));
        await create(connection("cal", "c1", { metadata: { ...uris("primary"), email: "a@example.test" } }));
        await create(connection("cal", "c2"));
        await create(connection("keep", "c3", { metadata: uris("primary") }));

        expect(await store.deleteIntegration(ENV, "cal")).toBe(2);
        expect(await store.getIntegration(ENV, "cal")).toBeNull();
        expect(await get("cal", "c1")).toBeNull();
        expect(await byUri("cal", "primary")).toEqual([]);
        expect(await store.findByMetadataEmail(ENV, "cal", "a@example.test")).toEqual([]);
        expect(await byUri("keep", "primary")).toEqual(["c3"]);
        expect(await store.deleteIntegration(ENV, "cal")).toBe(0);
      });
    });

    describe("connections", () => {
      test("upsert creates, then re-authorization keeps id, createdAt and metadata", async () => {
        const first = connection("cal", "c1", {
          connectionConfig: { emailAddressHash: "h1", region: "eu" },
          metadata: { emailAddress: "a@example.test", note: "kept" },
          endUser: { id: "u1", email: "a@example.test" },
          errors: [{ type: "refresh", message: "expired", at: 1 }],
        });
        const created = await store.upsertConnection(first);
        expect(created).toEqual({ created: true, connection: first });
        expect(await get("cal", "c1")).toEqual(first);

        const again = connection("cal", "c1", {
          credentialsEnc: "v1:enc:new",
          credentialsExpiresAt: null,
          connectionConfig: { emailAddressHash: "h2", scope: "calendar" },
          metadata: { ignored: true },
          endUser: null,
        });
        const { created: wasCreated, connection: updated } = await store.upsertConnection(again);
        const expected: ConnectionRecord = {
          ...first,
          credentialsEnc: "v1:enc:new",
          credentialsExpiresAt: null,
          connectionConfig: { emailAddressHash: "h2", region: "eu", scope: "calendar" },
          updatedAt: again.updatedAt,
        };
        expect(wasCreated).toBe(false);
        expect(updated).toEqual(expected);
        expect(await get("cal", "c1")).toEqual(expected);

        const withUser = await store.upsertConnection(connection("cal", "c1", { endUser: { id: "u2" } }));
        expect(withUser.connection.endUser).toEqual({ id: "u2" });
        expect(withUser.connection.id).toBe(first.id);
      });

      test("are scoped by environment and integration", async () => {
        await create(connection("cal", "c1"));
        await create(connection("cal-2", "c1"));
        await create(connection("cal", "c1", { environmentId: OTHER_ENV }));
        expect(await store.countConnections(ENV, "cal")).toBe(1);
        expect(await store.countConnections(ENV, "cal-2")).toBe(1);
        expect(await store.getConnection(OTHER_ENV, "cal", "c1")).not.toBeNull();
        expect(await get("missing", "c1")).toBeNull();
        expect(await get("cal", "missing")).toBeNull();
      });

      test("are listed newest first, with total and pages", async () => {
        const made: ConnectionRecord[] = [];
        for (let i = 0; i < 5; i++) made.push(await create(connection("cal", `c${i}`)));
        await create(connection("cal", "other-env", { environmentId: OTHER_ENV }));
        const newest = [...made].reverse();

        expect(await store.listConnections(ENV, { limit: 10, offset: 0 })).toEqual({ connections: newest, total: 5 });
        const page = await store.listConnections(ENV, { limit: 2, offset: 2 });
        expect(page.total).toBe(5);
        expect(page.connections.map((c) => c.connectionId)).toEqual(["c2", "c1"]);
        expect((await store.listConnections(ENV, { limit: 2, offset: 10 })).connections).toEqual([]);
      });

      test("with the same creation time are listed by id, newest first", async () => {
        const at = tick();
        const a = await create(connection("cal", "a", { id: "conn_0000000000aaaaaaaaaaaaaaaa", createdAt: at }));
        const b = await create(connection("cal", "b", { id: "conn_0000000000bbbbbbbbbbbbbbbb", createdAt: at }));
        const { connections } = await store.listConnections(ENV, { limit: 10, offset: 0 });
        expect(connections.map((c) => c.id)).toEqual([b.id, a.id]);
      });

      test("are filtered by integration, exact id and end user", async () => {
        await create(connection("cal", "alpha", { endUser: { id: "u1" } }));
        await create(connection("cal", "alphabet", { endUser: { id: "u2" } }));
        await create(connection("mail", "alpha", { endUser: { id: "u1" } }));
        const ids = async (filter: Partial<Parameters<ConnectionServiceStore["listConnections"]>[1]>) => {
          const page = await store.listConnections(ENV, { limit: 10, offset: 0, ...filter });
          return { ids: page.connections.map((c) => `${c.providerConfigKey}/${c.connectionId}`), total: page.total };
        };
        expect(await ids({ providerConfigKey: "cal" })).toEqual({ ids: ["cal/alphabet", "cal/alpha"], total: 2 });
        expect(await ids({ connectionId: "alpha" })).toEqual({ ids: ["mail/alpha", "cal/alpha"], total: 2 });
        expect(await ids({ endUserId: "u1" })).toEqual({ ids: ["mail/alpha", "cal/alpha"], total: 2 });
        expect(await ids({ providerConfigKey: "cal", endUserId: "u1" })).toEqual({ ids: ["cal/alpha"], total: 1 });
        expect(await ids({ endUserId: "nobody" })).toEqual({ ids: [], total: 0 });
      });

      test("are filtered by any of several integrations", async () => {
        await create(connection("cal", "a"));
        await create(connection("mail", "b"));
        await create(connection("tasks", "c"));
        const ids = async (providerConfigKeys: string[], limit = 10) => {
          const page = await store.listConnections(ENV, { providerConfigKeys, limit, offset: 0 });
          return { ids: page.connections.map((c) => `${c.providerConfigKey}/${c.connectionId}`), total: page.total };
        };
        expect(await ids(["cal", "mail"])).toEqual({ ids: ["mail/b", "cal/a"], total: 2 });
        expect(await ids(["tasks"])).toEqual({ ids: ["tasks/c"], total: 1 });
        expect(await ids(["mail", "cal", "tasks"], 1)).toEqual({ ids: ["tasks/c"], total: 3 });
        expect(await ids(["none", "other"])).toEqual({ ids: [], total: 0 });
      });

      test("are filtered by several integrations and by the end user's email, name and organization", async () => {
        const alice = { id: "u1", email: "alice@example.com", display_name: "Alice", organization: { id: "org-1" } };
        await create(connection("cal", "a", { endUser: alice }));
        await create(connection("mail", "a", { endUser: { ...alice, organization: { id: "org-2" } } }));
        await create(connection("drive", "b", { endUser: { id: "u2", email: "bob@example.com" } }));
        const ids = async (filter: Partial<Parameters<ConnectionServiceStore["listConnections"]>[1]>) => {
          const page = await store.listConnections(ENV, { limit: 10, offset: 0, ...filter });
          return page.connections.map((c) => `${c.providerConfigKey}/${c.connectionId}`).sort();
        };
        expect(await ids({ providerConfigKeys: ["cal", "drive"] })).toEqual(["cal/a", "drive/b"]);
        expect(await ids({ providerConfigKeys: ["cal", "drive"], providerConfigKey: "drive" })).toEqual(["drive/b"]);
        expect(await ids({ endUserEmail: "alice@example.com" })).toEqual(["cal/a", "mail/a"]);
        expect(await ids({ endUserDisplayName: "Alice", endUserOrganizationId: "org-2" })).toEqual(["mail/a"]);
        expect(await ids({ endUserOrganizationId: "org-3" })).toEqual([]);
        expect(
          (await store.listConnections(ENV, { endUserEmail: "alice@example.com", limit: 1, offset: 0 })).total,
        ).toBe(2);
      });

      test("are filtered by tags, every given tag required; re-authorization replaces tags only when given", async () => {
        await create(connection("cal", "a", { tags: { team: "core", "project.id": "p=1" } }));
        await create(connection("cal", "b", { tags: { team: "core" } }));
        await create(connection("mail", "c", { tags: { team: "edge", "project.id": "p=1" } }));
        const ids = async (tags: Record<string, string>) =>
          (await store.listConnections(ENV, { limit: 10, offset: 0, tags })).connections.map((c) => c.connectionId);
        expect(await ids({ team: "core" })).toEqual(["b", "a"]);
        expect(await ids({ team: "core", "project.id": "p=1" })).toEqual(["a"]);
        expect(await ids({ "project.id": "p=1" })).toEqual(["c", "a"]);
        expect(await ids({ team: "Core" })).toEqual([]);
        expect(await ids({ "project.id=p": "1" })).toEqual([]);
        expect((await get("cal", "a"))?.tags).toEqual({ team: "core", "project.id": "p=1" });

        await create(connection("cal", "a", { tags: {} }));
        expect((await get("cal", "a"))?.tags).toEqual({ team: "core", "project.id": "p=1" });
        await create(connection("cal", "a", { tags: { team: "edge" } }));
        expect((await get("cal", "a"))?.tags).toEqual({ team: "edge" });
        expect(await ids({ team: "edge" })).toEqual(["c", "a"]);
      });

      test("keep their webhook URL override on re-authorization unless a new one is given; a patch sets or clears it", async () => {
        await create(connection("cal", "a", { webhookUrlOverride: "https://hooks.example.test/a" }));
        await create(connection("cal", "b"));
        expect((await get("cal", "a"))?.webhookUrlOverride).toBe("https://hooks.example.test/a");
        expect((await get("cal", "b"))?.webhookUrlOverride).toBeUndefined();
        expect(await store.connectionWebhookOverride(ENV, "cal", "b")).toEqual({ webhookUrlOverride: undefined });

        await create(connection("cal", "a"));
        expect((await get("cal", "a"))?.webhookUrlOverride).toBe("https://hooks.example.test/a");
        await create(connection("cal", "a", { webhookUrlOverride: "https://hooks.example.test/a2" }));
        expect((await get("cal", "a"))?.webhookUrlOverride).toBe("https://hooks.example.test/a2");

        const patched = await store.patchConnection(
          ENV,
          "cal",
          "b",
          { webhookUrlOverride: "https://hooks.example.test/b" },
          9_000,
        );
        expect(patched?.webhookUrlOverride).toBe("https://hooks.example.test/b");
        expect(await store.connectionWebhookOverride(ENV, "cal", "b")).toEqual({
          webhookUrlOverride: "https://hooks.example.test/b",
        });
        expect(await store.connectionWebhookOverride(ENV, "cal", "nobody")).toBeNull();
        expect((await get("cal", "b"))?.webhookUrlOverride).toBe("https://hooks.example.test/b");
        await store.patchConnection(ENV, "cal", "b", { tags: { team: "core" } }, 10_000);
        expect(await get("cal", "b")).toMatchObject({
          webhookUrlOverride: "https://hooks.example.test/b",
          tags: { team: "core" },
        });
        const cleared = await store.patchConnection(ENV, "cal", "b", { webhookUrlOverride: null }, 11_000);
        expect(cleared?.webhookUrlOverride).toBeUndefined();
        expect((await get("cal", "b"))?.webhookUrlOverride).toBeUndefined();
      });

      test("search is a case-insensitive substring of the connection id, wildcards taken literally", async () => {
        for (const id of ["User-One", "user_two", "userXtwo", "100%", "1000", "back\\slash"]) {
          await create(connection("cal", id));
        }
        const search = async (s: string) =>
          (await store.listConnections(ENV, { search: s, limit: 10, offset: 0 })).connections
            .map((c) => c.connectionId)
            .sort();
        expect(await search("USER-o")).toEqual(["User-One"]);
        expect(await search("user")).toEqual(["User-One", "userXtwo", "user_two"]);
        expect(await search("r_t")).toEqual(["user_two"]);
        expect(await search("0%")).toEqual(["100%"]);
        expect(await search("%")).toEqual(["100%"]);
        expect(await search("\\s")).toEqual(["back\\slash"]);
        expect(await search(".*")).toEqual([]);
        const page = await store.listConnections(ENV, { search: "user", limit: 1, offset: 0 });
        expect(page.total).toBe(3);
        expect(page.connections).toHaveLength(1);
      });

      test("delete removes one connection", async () => {
        await create(connection("cal", "c1", { metadata: uris("primary") }));
        await create(connection("cal", "c2", { metadata: uris("primary") }));
        expect(await store.deleteConnection(ENV, "cal", "c1")).toBe(true);
        expect(await store.deleteConnection(ENV, "cal", "c1")).toBe(false);
        expect(await get("cal", "c1")).toBeNull();
        expect(await byUri("cal", "primary")).toEqual(["c2"]);
        expect(await store.countConnections(ENV, "cal")).toBe(1);
      });

      test("patch changes the given fields only", async () => {
        const c = await create(
          connection("cal", "c1", { connectionConfig: { emailAddressHash: "h1" }, metadata: { email: "a@x.test" } }),
        );
        const at = tick();
        const errors = [{ type: "refresh_failed", message: "invalid_grant", at }];
        const patched = await store.patchConnection(ENV, "cal", "c1", { errors, credentialsExpiresAt: 42 }, at);
        const expected = { ...c, errors, credentialsExpiresAt: 42, updatedAt: at };
        expect(patched).toEqual(expected);
        expect(await get("cal", "c1")).toEqual(expected);

        await store.patchConnection(ENV, "cal", "c1", { connectionConfig: { emailAddressHash: "h2" } }, tick());
        expect(await store.findByEmailHash(ENV, "cal", "h1")).toEqual([]);
        expect(await store.findByEmailHash(ENV, "cal", "h2")).toEqual(["c1"]);
        expect(await store.patchConnection(ENV, "cal", "missing", { errors: [] }, tick())).toBeNull();
      });
    });

    describe("metadata writes", () => {
      test("set replaces the metadata", async () => {
        await create(connection("cal", "c1", { metadata: { a: 1, b: 2 } }));
        const at = tick();
        const [written] = await store.writeMetadata(ENV, "cal", ["c1"], { b: 3, c: { d: [1] } }, "set", at);
        expect(written?.metadata).toEqual({ b: 3, c: { d: [1] } });
        expect(written?.updatedAt).toBe(at);
        expect(await get("cal", "c1")).toEqual(written as ConnectionRecord);
      });

      test("update merges into the metadata", async () => {
        await create(connection("cal", "c1", { metadata: { a: 1, b: 2 } }));
        await store.writeMetadata(ENV, "cal", ["c1"], { b: 3, c: null }, "update", tick());
        expect((await get("cal", "c1"))?.metadata).toEqual({ a: 1, b: 3, c: null });
      });

      test("write several connections and return them in request order", async () => {
        await create(connection("cal", "c1"));
        await create(connection("cal", "c2", { metadata: { keep: true } }));
        const written = await store.writeMetadata(ENV, "cal", ["c2", "c1"], { tag: "x" }, "update", tick());
        expect(written.map((c) => [c.connectionId, c.metadata])).toEqual([
          ["c2", { keep: true, tag: "x" }],
          ["c1", { tag: "x" }],
        ]);
      });

      test("with unknown ids throw naming every missing id and write nothing", async () => {
        const c1 = await create(connection("cal", "c1", { metadata: { a: 1, ...uris("old") } }));
        const c2 = await create(connection("cal", "c2"));
        await create(connection("other", "gone"));
        const write = store.writeMetadata(ENV, "cal", ["c1", "gone", "c2", "nope"], uris("new"), "set", tick());
        const error = await write.then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(UnknownConnectionsError);
        expect((error as UnknownConnectionsError).connectionIds).toEqual(["gone", "nope"]);
        expect(await get("cal", "c1")).toEqual(c1);
        expect(await get("cal", "c2")).toEqual(c2);
        expect(await byUri("cal", "new")).toEqual([]);
        expect(await byUri("cal", "old")).toEqual(["c1"]);
      });
    });

    describe("matching by watch URI (rule 1)", () => {
      test("matches the exact URI string only", async () => {
        const uri = `${CAL}/ada%40example.test/events?alt=json`;
        await create(connection("cal", "c1", { metadata: { calendarWatchResourceUris: [uri] } }));
        expect(await store.findByWatchUri(ENV, "cal", uri)).toEqual(["c1"]);
        expect(await store.findByWatchUri(ENV, "cal", `${CAL}/ada@example.test/events?alt=json`)).toEqual([]);
        expect(await store.findByWatchUri(ENV, "cal", `${CAL}/ada%40example.test/events`)).toEqual([]);
        expect(await store.findByWatchUri(ENV, "cal", `${CAL}/ada%40example.test/events?alt=xml`)).toEqual([]);
        expect(await store.findByWatchUri(ENV, "cal", `${CAL}/ADA%40example.test/events?alt=json`)).toEqual([]);
      });

      test("returns every connection listing the URI, sorted", async () => {
        await create(connection("cal", "zed", { metadata: uris("shared", "z-only") }));
        await create(connection("cal", "amy", { metadata: uris("shared") }));
        await create(connection("cal", "bob", { metadata: uris("other") }));
        expect(await byUri("cal", "shared")).toEqual(["amy", "zed"]);
        expect(await byUri("cal", "z-only")).toEqual(["zed"]);
      });

      test("is scoped by integration and environment", async () => {
        await create(connection("cal", "c1", { metadata: uris("primary") }));
        await create(connection("cal-2", "c2", { metadata: uris("primary") }));
        await create(connection("cal", "c3", { environmentId: OTHER_ENV, metadata: uris("primary") }));
        expect(await byUri("cal", "primary")).toEqual(["c1"]);
        expect(await byUri("cal-2", "primary")).toEqual(["c2"]);
      });

      test("ignores entries that are not strings, and values that are not arrays", async () => {
        await create(
          connection("cal", "c1", { metadata: { calendarWatchResourceUris: [`${CAL}/a`, 5, null, [`${CAL}/b`]] } }),
        );
        await create(connection("cal", "c2", { metadata: { calendarWatchResourceUris: `${CAL}/a` } }));
        await create(connection("cal", "c3", { metadata: { calendarWatchResourceUris: [`${CAL}/a`, `${CAL}/a`] } }));
        expect(await byUri("cal", "a")).toEqual(["c1", "c3"]);
        expect(await byUri("cal", "b")).toEqual([]);
      });

      test("follows metadata set, update and delete", async () => {
        await create(connection("cal", "c1", { metadata: uris("one") }));
        await store.writeMetadata(ENV, "cal", ["c1"], uris("two", "three"), "set", tick());
        expect(await byUri("cal", "one")).toEqual([]);
        expect(await byUri("cal", "two")).toEqual(["c1"]);

        await store.writeMetadata(ENV, "cal", ["c1"], { note: "unrelated" }, "update", tick());
        expect(await byUri("cal", "three")).toEqual(["c1"]);
        await store.writeMetadata(ENV, "cal", ["c1"], uris("four"), "update", tick());
        expect(await byUri("cal", "three")).toEqual([]);
        expect(await byUri("cal", "four")).toEqual(["c1"]);

        await store.writeMetadata(ENV, "cal", ["c1"], { other: 1 }, "set", tick());
        expect(await byUri("cal", "four")).toEqual([]);

        await store.writeMetadata(ENV, "cal", ["c1"], uris("five"), "set", tick());
        await store.deleteConnection(ENV, "cal", "c1");
        expect(await byUri("cal", "five")).toEqual([]);
      });

      test("reads Nango's googleCalendarWatchResourceUris like calendarWatchResourceUris", async () => {
        const google = (...paths: string[]) => paths.map((p) => `${CAL}/${p}`);
        await create(connection("cal", "nango", { metadata: { googleCalendarWatchResourceUris: google("a", "b") } }));
        await create(
          connection("cal", "both", {
            metadata: {
              calendarWatchResourceUris: google("b"),
              googleCalendarWatchResourceUris: [...google("b", "c"), 5],
            },
          }),
        );
        await create(connection("cal", "junction", { metadata: uris("c") }));
        await create(connection("cal", "string", { metadata: { googleCalendarWatchResourceUris: `${CAL}/a` } }));
        expect(await byUri("cal", "a")).toEqual(["nango"]);
        expect(await byUri("cal", "b")).toEqual(["both", "nango"]);
        expect(await byUri("cal", "c")).toEqual(["both", "junction"]);

        await store.writeMetadata(ENV, "cal", ["nango"], { googleCalendarWatchResourceUris: null }, "update", tick());
        expect(await byUri("cal", "a")).toEqual([]);
        await store.writeMetadata(ENV, "cal", ["both"], { calendarWatchResourceUris: [] }, "update", tick());
        expect(await byUri("cal", "b")).toEqual(["both"]);
        await store.writeMetadata(ENV, "cal", ["both"], {}, "set", tick());
        expect(await byUri("cal", "c")).toEqual(["junction"]);
      });

      test("survives re-authorization, which keeps the metadata", async () => {
        await create(connection("cal", "c1", { metadata: uris("primary") }));
        await create(connection("cal", "c1", { metadata: {} }));
        expect(await byUri("cal", "primary")).toEqual(["c1"]);
      });
    });

    describe("matching by primary calendar (rule 2)", () => {
      test("finds connections by connection_config.emailAddressHash", async () => {
        await create(connection("cal", "c1", { connectionConfig: { emailAddressHash: "abc" } }));
        await create(connection("cal", "c2", { connectionConfig: { emailAddressHash: "abc" } }));
        await create(connection("cal", "c3", { connectionConfig: { emailAddressHash: "ABC" } }));
        await create(connection("cal-2", "c4", { connectionConfig: { emailAddressHash: "abc" } }));
        await create(connection("cal", "c5", { connectionConfig: { emailAddressHash: 7 } }));
        expect(await store.findByEmailHash(ENV, "cal", "abc")).toEqual(["c1", "c2"]);
        expect(await store.findByEmailHash(ENV, "cal", "7")).toEqual([]);
        expect(await store.findByEmailHash(ENV, "cal", "missing")).toEqual([]);
      });

      test("follows a re-authorization that changes the hash", async () => {
        await create(connection("cal", "c1", { connectionConfig: { emailAddressHash: "old", region: "eu" } }));
        await create(connection("cal", "legacy"));
        expect(await store.findByEmailHash(ENV, "cal", "old")).toEqual(["c1"]);

        await create(connection("cal", "c1", { connectionConfig: { emailAddressHash: "new" } }));
        await create(connection("cal", "legacy", { connectionConfig: { emailAddressHash: "fixed" } }));
        expect(await store.findByEmailHash(ENV, "cal", "old")).toEqual([]);
        expect(await store.findByEmailHash(ENV, "cal", "new")).toEqual(["c1"]);
        expect(await store.findByEmailHash(ENV, "cal", "fixed")).toEqual(["legacy"]);
        expect((await get("cal", "c1"))?.connectionConfig).toEqual({ emailAddressHash: "new", region: "eu" });
      });

      test("finds metadata.emailAddress trimmed and case-insensitively", async () => {
        await create(connection("cal", "c1", { metadata: { emailAddress: "  Ada@Example.TEST " } }));
        await create(connection("cal", "c2", { metadata: { email: "ada@example.test" } }));
        await create(connection("cal-2", "c3", { metadata: { emailAddress: "ada@example.test" } }));
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "ada@example.test")).toEqual(["c1"]);
        expect(await store.findByMetadataEmailAddress(ENV, "cal", " ADA@EXAMPLE.test\t")).toEqual(["c1"]);
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "bob@example.test")).toEqual([]);
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "  ")).toEqual([]);
      });

      test("finds metadata.email trimmed and case-insensitively", async () => {
        await create(connection("cal", "c1", { metadata: { email: "Ada@Example.test\n" } }));
        await create(connection("cal", "c2", { metadata: { email: "ada@example.test" } }));
        await create(connection("cal", "c3", { metadata: { emailAddress: "ada@example.test" } }));
        expect(await store.findByMetadataEmail(ENV, "cal", "ADA@example.test")).toEqual(["c1", "c2"]);
      });

      test("ignores email values that are not strings", async () => {
        await create(connection("cal", "c1", { metadata: { emailAddress: ["ada@example.test"], email: 12 } }));
        await create(connection("cal", "c2", { metadata: { emailAddress: { v: "ada@example.test" }, email: "" } }));
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "ada@example.test")).toEqual([]);
        expect(await store.findByMetadataEmail(ENV, "cal", "12")).toEqual([]);
        expect(await store.findByMetadataEmail(ENV, "cal", "")).toEqual([]);
      });

      test("follows metadata writes (rule 5: fixing a legacy connection)", async () => {
        await create(connection("cal", "c1", { metadata: { email: "old@example.test" } }));
        await store.writeMetadata(ENV, "cal", ["c1"], { emailAddress: "Ada@Example.test" }, "update", tick());
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "ada@example.test")).toEqual(["c1"]);
        expect(await store.findByMetadataEmail(ENV, "cal", "old@example.test")).toEqual(["c1"]);

        await store.writeMetadata(ENV, "cal", ["c1"], { emailAddress: "bob@example.test" }, "set", tick());
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "ada@example.test")).toEqual([]);
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "bob@example.test")).toEqual(["c1"]);
        expect(await store.findByMetadataEmail(ENV, "cal", "old@example.test")).toEqual([]);

        await store.writeMetadata(ENV, "cal", ["c1"], { emailAddress: null }, "update", tick());
        expect(await store.findByMetadataEmailAddress(ENV, "cal", "bob@example.test")).toEqual([]);
      });
    });
    describe("matching rule 2 in one call (findByEmail)", () => {
      const email = "ada@example.test";
      test("the first tier with a match decides, with every connection of that tier", async () => {
        const hash = emailAddressHash(email);
        await create(connection("cal", "by-hash-2", { connectionConfig: { emailAddressHash: hash } }));
        await create(connection("cal", "by-hash-1", { connectionConfig: { emailAddressHash: hash } }));
        await create(connection("cal", "by-address", { metadata: { emailAddress: "ADA@example.test " } }));
        await create(connection("cal", "by-email", { metadata: { email } }));
        expect(await store.findByEmail(ENV, "cal", ` ${email.toUpperCase()} `)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["by-hash-1", "by-hash-2"],
        });

        await store.deleteConnection(ENV, "cal", "by-hash-1");
        await store.deleteConnection(ENV, "cal", "by-hash-2");
        expect(await store.findByEmail(ENV, "cal", email)).toEqual({
          tier: "metadataEmailAddress",
          connectionIds: ["by-address"],
        });

        await store.writeMetadata(ENV, "cal", ["by-address"], { email }, "set", tick());
        expect(await store.findByEmail(ENV, "cal", email)).toEqual({
          tier: "metadataEmail",
          connectionIds: ["by-address", "by-email"],
        });
      });

      test("an emailAddressHash of Nango's formula matches like one of Junction's", async () => {
        await create(
          connection("cal", "nango", { connectionConfig: { emailAddressHash: nangoEmailAddressHash(email) } }),
        );
        await create(
          connection("cal", "junction", { connectionConfig: { emailAddressHash: emailAddressHash(email) } }),
        );
        await create(connection("cal", "by-address", { metadata: { emailAddress: email } }));
        await create(
          connection("cal-2", "other", { connectionConfig: { emailAddressHash: nangoEmailAddressHash(email) } }),
        );
        const nango = { nangoEmailHashes: true };
        expect(await store.findByEmail(ENV, "cal", ` ${email.toUpperCase()}`, nango)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["junction", "nango"],
        });
        // Without the option (no imported connections), Nango's formula is not looked up.
        expect(await store.findByEmail(ENV, "cal", email)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["junction"],
        });
        await store.deleteConnection(ENV, "cal", "junction");
        expect(await store.findByEmail(ENV, "cal", email, nango)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["nango"],
        });
        expect(await store.findByEmail(ENV, "cal", email)).toEqual({
          tier: "metadataEmailAddress",
          connectionIds: ["by-address"],
        });
        expect(await store.findByEmail(ENV, "cal", "bob@example.test", nango)).toBeNull();
        // A bare SHA-256 of the address is neither formula.
        await store.deleteConnection(ENV, "cal", "nango");
        await create(
          connection("cal", "bare", { connectionConfig: { emailAddressHash: Bun.SHA256.hash(email, "hex") } }),
        );
        expect(await store.findByEmail(ENV, "cal", email, nango)).toEqual({
          tier: "metadataEmailAddress",
          connectionIds: ["by-address"],
        });
      });

      test("is scoped by integration and environment, and null without a match", async () => {
        await create(connection("cal-2", "c1", { metadata: { emailAddress: email } }));
        await create(connection("cal", "c2", { environmentId: OTHER_ENV, metadata: { email } }));
        await create(connection("cal", "c3", { connectionConfig: { emailAddressHash: email } }));
        await create(connection("cal", "c4", { metadata: { email: "bob@example.test" } }));
        expect(await store.findByEmail(ENV, "cal", email)).toBeNull();
        expect(await store.findByEmail(ENV, "cal", "  ")).toBeNull();
        expect(await store.findByEmail(ENV, "cal-2", email)).toEqual({
          tier: "metadataEmailAddress",
          connectionIds: ["c1"],
        });
      });
    });

    describe("matching lookups with the webhook URL overrides (matchByWatchUri, matchByEmail)", () => {
      const email = "ada@example.test";
      const hook = (id: string) => `https://hooks.example.test/${id}`;

      test("rule 1 answers the connections of findByWatchUri and the override of each that has one", async () => {
        await create(connection("cal", "zed", { metadata: uris("shared"), webhookUrlOverride: hook("zed") }));
        await create(connection("cal", "amy", { metadata: uris("shared") }));
        await create(connection("cal", "bob", { metadata: uris("shared"), webhookUrlOverride: hook("bob") }));
        await create(connection("cal-2", "cat", { metadata: uris("shared"), webhookUrlOverride: hook("cat") }));
        expect(await store.matchByWatchUri(ENV, "cal", `${CAL}/shared`)).toEqual({
          connectionIds: ["amy", "bob", "zed"],
          webhookUrlOverrides: { bob: hook("bob"), zed: hook("zed") },
        });
        expect(await store.matchByWatchUri(ENV, "cal", `${CAL}/other`)).toEqual({
          connectionIds: [],
          webhookUrlOverrides: {},
        });

        await store.patchConnection(ENV, "cal", "zed", { webhookUrlOverride: null }, tick());
        await store.patchConnection(ENV, "cal", "amy", { webhookUrlOverride: hook("amy2") }, tick());
        await store.deleteConnection(ENV, "cal", "bob");
        expect(await store.matchByWatchUri(ENV, "cal", `${CAL}/shared`)).toEqual({
          connectionIds: ["amy", "zed"],
          webhookUrlOverrides: { amy: hook("amy2") },
        });
        expect(await byUri("cal", "shared")).toEqual(["amy", "zed"]);
      });

      test("rule 1's integration, when the store reads it with a match, is the integration as it is now", async () => {
        await store.insertIntegration(integration("cal"));
        await create(connection("cal", "amy", { metadata: uris("shared") }));
        await create(connection("cal", "bob", { metadata: uris("shared") }));
        const first = await store.matchByWatchUri(ENV, "cal", `${CAL}/shared`);
        expect(first.connectionIds).toEqual(["amy", "bob"]);
        if (first.integration)
          expect(first.integration).toEqual({ provider: "google-calendar", forwardWebhooks: true });
        const stopped = integration("cal", { provider: "google-mail", forwardWebhooks: false });
        expect(await store.replaceIntegration(ENV, "cal", stopped)).toBe(true);
        const second = await store.matchByWatchUri(ENV, "cal", `${CAL}/shared`);
        expect(second.integration === undefined).toBe(first.integration === undefined);
        if (second.integration) expect(second.integration).toEqual({ provider: "google-mail", forwardWebhooks: false });
        // Deleting the integration deletes its connections: nothing matches, so no integration is answered.
        await store.deleteIntegration(ENV, "cal");
        expect(await store.matchByWatchUri(ENV, "cal", `${CAL}/shared`)).toEqual({
          connectionIds: [],
          webhookUrlOverrides: {},
        });
      });

      test("rule 2 answers the tier and connections of findByEmail and their overrides", async () => {
        const nango = { nangoEmailHashes: true };
        const hashOf = (formula: (e: string) => string) => ({ connectionConfig: { emailAddressHash: formula(email) } });
        await create(connection("cal", "by-hash", { ...hashOf(emailAddressHash), webhookUrlOverride: hook("h") }));
        await create(
          connection("cal", "by-nango", { ...hashOf(nangoEmailAddressHash), webhookUrlOverride: hook("n") }),
        );
        await create(
          connection("cal", "by-address", { metadata: { emailAddress: email }, webhookUrlOverride: hook("a") }),
        );
        await create(connection("cal", "by-email", { metadata: { email } }));
        expect(await store.matchByEmail(ENV, "cal", ` ${email.toUpperCase()}`, nango)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["by-hash", "by-nango"],
          webhookUrlOverrides: { "by-hash": hook("h"), "by-nango": hook("n") },
        });
        expect(await store.matchByEmail(ENV, "cal", email)).toEqual({
          tier: "emailAddressHash",
          connectionIds: ["by-hash"],
          webhookUrlOverrides: { "by-hash": hook("h") },
        });
        await store.deleteConnection(ENV, "cal", "by-hash");
        await store.deleteConnection(ENV, "cal", "by-nango");
        expect(await store.matchByEmail(ENV, "cal", email, nango)).toEqual({
          tier: "metadataEmailAddress",
          connectionIds: ["by-address"],
          webhookUrlOverrides: { "by-address": hook("a") },
        });
        await store.deleteConnection(ENV, "cal", "by-address");
        expect(await store.matchByEmail(ENV, "cal", email)).toEqual({
          tier: "metadataEmail",
          connectionIds: ["by-email"],
          webhookUrlOverrides: {},
        });
        expect(await store.matchByEmail(ENV, "cal", "bob@example.test", nango)).toBeNull();
        expect(await store.matchByEmail(ENV, "cal", "  ")).toBeNull();
      });
    });

    oauthFlowStoreConformance(() => store);
    secretRewriteConformance(() => store);
  });
}
