import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase } from "@junction/platform";
import { MIGRATIONS } from "./sqlite-schema.ts";
import { SqliteWebhookStore } from "./sqlite-store.ts";
import { deliveryStoreConformance } from "./delivery-store.conformance.ts";
import type { MessageFilter } from "./records.ts";
import { webhookSettingsStoreConformance } from "./store.conformance.ts";

const root = mkdtempSync(join(tmpdir(), "junction-webhook-store-"));
let files = 0;
const freshPath = () => join(root, `store-${++files}`, "webhook.sqlite");

afterAll(() => rmSync(root, { recursive: true, force: true }));

webhookSettingsStoreConformance("SqliteWebhookStore", async () => {
  const store = SqliteWebhookStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

deliveryStoreConformance("SqliteWebhookStore", async () => {
  const store = SqliteWebhookStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

describe("SqliteWebhookStore", () => {
  test("migrations apply once, however often the file is opened", async () => {
    const path = freshPath();
    await SqliteWebhookStore.open(path).close();
    await SqliteWebhookStore.open(path).close();
    const db = openDatabase(path);
    const versions = db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations WHERE component = 'webhook'")
      .all();
    db.close();
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  test("settings survive reopening the file, and a second handle sees the first one's saves", async () => {
    const path = freshPath();
    const first = SqliteWebhookStore.open(path);
    const second = SqliteWebhookStore.open(path);
    const rec = {
      environmentId: "env_1",
      version: 1,
      endpoints: [{ id: "ep_1", url: "https://hooks.example.com/in", enabled: true, createdAt: 1 }],
      signingSecretEnc: "enc:v1:k:iv:ct",
      signingSecretPrefix: "whsec_abcd",
      previousSigningSecretEnc: null,
      previousSecretValidUntil: null,
      signingSecretShown: true,
      createdAt: 1,
      updatedAt: 1,
    };
    expect(await first.saveSettings(rec)).toBe(true);
    expect(await second.saveSettings(rec)).toBe(false);
    expect(await second.saveSettings({ ...rec, version: 2 })).toBe(true);
    await first.close();
    await second.close();

    const reopened = SqliteWebhookStore.open(path);
    expect(await reopened.getSettings("env_1")).toEqual({ ...rec, version: 2 });
    await reopened.close();
  });

  test("attempts and de-duplication keys written before the schema upgrade are kept by it", async () => {
    const path = freshPath();
    const db = openDatabase(path);
    migrate(db, "webhook", MIGRATIONS.slice(0, 2));
    db.query(
      `INSERT INTO webhook_attempts (id, message_id, endpoint_id, url, status_code, latency_ms, response_snippet, error, at, number)
       VALUES ('att_2', 'msg_1', 'ep_1', 'https://hooks.example.com/in', 200, 12, 'ok', NULL, 20, 2),
              ('att_1', 'msg_1', 'ep_1', 'https://hooks.example.com/in', 503, 30, 'down', 'HTTP 503', 10, 1)`,
    ).run();
    db.query(
      `INSERT INTO webhook_notification_keys (environment_id, channel_id, message_number, notification_id, received_at)
       VALUES ('env_1', 'ch-1', 7, 'ntf_first', 5)`,
    ).run();
    db.close();

    const store = SqliteWebhookStore.open(path);
    expect((await store.listAttempts("msg_1")).map((a) => [a.id, a.number, a.statusCode, a.error])).toEqual([
      ["att_1", 1, 503, "HTTP 503"],
      ["att_2", 2, 200, null],
    ]);
    expect(await store.findNotificationKey("env_1", "ch-1", 7)).toBe("ntf_first");
    expect(await store.claimNotificationKey("env_1", "ch-1", 7, "ntf_second", 6)).toBe("ntf_first");
    expect(await store.pruneNotificationKeys(6)).toBe(1);
    await store.close();
  });

  test("keys stored before they were kept in arrival order are moved in time order, and prune as before", async () => {
    const path = freshPath();
    const db = openDatabase(path);
    migrate(db, "webhook", MIGRATIONS.slice(0, 8));
    // Stored in key order, which is not their time order.
    db.query(
      `INSERT INTO webhook_notification_keys (environment_id, channel_id, message_number, notification_id, received_at)
       VALUES ('env_1', 'ch-a', 1, 'ntf_late', 30), ('env_1', 'ch-b', 1, 'ntf_early', 10)`,
    ).run();
    db.query(
      `INSERT INTO webhook_dedupe_keys (environment_id, provider_config_key, dedupe_key, notification_id, received_at)
       VALUES ('env_1', 'mail', 'm-a', 'ntf_mail_late', 30), ('env_1', 'mail', 'm-b', 'ntf_mail_early', 10)`,
    ).run();
    db.close();

    const store = SqliteWebhookStore.open(path);
    expect(await store.claimNotificationKey("env_1", "ch-a", 1, "ntf_again", 40)).toBe("ntf_late");
    expect(await store.claimDedupeKey("env_1", "mail", "m-b", "ntf_again", 40)).toBe("ntf_mail_early");
    expect(await store.pruneNotificationKeys(20)).toBe(2);
    expect(await store.findNotificationKey("env_1", "ch-b", 1)).toBeNull();
    expect(await store.findNotificationKey("env_1", "ch-a", 1)).toBe("ntf_late");
    expect(await store.findDedupeKey("env_1", "mail", "m-a")).toBe("ntf_mail_late");
    await store.close();
  });

  test("a key is claimed into a table appended to and its unique index, and pruned oldest first", async () => {
    const db = openDatabase(freshPath());
    const store = new SqliteWebhookStore(db);
    const indexes = (table: string) =>
      db
        .query<{ name: string }, [string]>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?")
        .all(table)
        .map((r) => r.name);
    // Two B-trees per claim: no index of the time beside the key.
    expect(indexes("webhook_notification_keys")).toEqual(["webhook_notification_keys_key"]);
    expect(indexes("webhook_dedupe_keys")).toEqual(["webhook_dedupe_keys_key"]);
    await store.claimNotificationKey("env_1", "ch-1", 1, "ntf_1", 10);
    await store.claimNotificationKey("env_1", "ch-2", 1, "ntf_2", 30);
    // A lagging writer's key, stored after a newer one: kept until the newer one goes.
    await store.claimNotificationKey("env_1", "ch-3", 1, "ntf_3", 20);
    await store.claimNotificationKey("env_1", "ch-4", 1, "ntf_4", 40);
    expect(await store.pruneNotificationKeys(25)).toBe(1);
    expect(await store.findNotificationKey("env_1", "ch-3", 1)).toBe("ntf_3");
    expect(await store.pruneNotificationKeys(35)).toBe(2);
    expect(await store.findNotificationKey("env_1", "ch-4", 1)).toBe("ntf_4");
    expect(await store.pruneNotificationKeys(50)).toBe(1);
    expect(await store.claimNotificationKey("env_1", "ch-1", 1, "ntf_again", 60)).toBe("ntf_again");
    await store.close();
  });

  test("writes asked for together are committed together, each resolving once it is on disk", async () => {
    const path = freshPath();
    const store = SqliteWebhookStore.open(path);
    const other = openDatabase(path);
    const count = () =>
      other.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhook_notification_keys").get()?.n ?? 0;
    const writes = ["ch-a", "ch-b", "ch-c"].map((channel, i) =>
      store.claimNotificationKey("env_1", channel, 1, `ntf_${i}`, 1),
    );
    // Nothing is written before the end of the turn, then all three at once.
    expect(count()).toBe(0);
    const firstDone = await writes[0];
    expect(firstDone).toBe("ntf_0");
    expect(count()).toBe(3);
    expect(await Promise.all(writes)).toEqual(["ntf_0", "ntf_1", "ntf_2"]);
    other.close();
    await store.close();
  });

  test("every delivery-log listing reads through an index, sorting at most the pending messages", async () => {
    const db = openDatabase(freshPath());
    const store = new SqliteWebhookStore(db);
    // The listing statements as run, with their parameters, to ask SQLite for their plans.
    const listings: Array<{ sql: string; params: unknown }> = [];
    const query = db.query.bind(db);
    db.query = ((sql: string) => {
      const statement = query(sql);
      if (!sql.startsWith("SELECT") || !sql.includes("FROM webhook_messages")) return statement;
      return {
        all: (params: unknown) => {
          listings.push({ sql, params });
          return statement.all(params as never);
        },
      };
    }) as typeof db.query;
    const filters: Array<[MessageFilter, string]> = [
      [{}, "sqlite_autoindex_webhook_messages_1"],
      [{ providerConfigKey: "google-calendar" }, "webhook_messages_by_integration"],
      [{ type: "forward" }, "sqlite_autoindex_webhook_messages_1"],
      [{ status: "pending" }, "webhook_messages_deliverable"],
      [{ status: "succeeded" }, "sqlite_autoindex_webhook_messages_1"],
      [{ status: "failed" }, "webhook_messages_unsuccessful"],
      [{ status: "exhausted", providerConfigKey: "google-calendar" }, "webhook_messages_unsuccessful"],
      [{ status: "pending", connectionId: "alice" }, "webhook_messages_deliverable"],
      [{ connectionId: "alice" }, "webhook_messages_by_connection"],
      [{ unmatchedOnly: true }, "webhook_messages_by_connection"],
    ];
    for (const [filter, index] of filters) {
      for (const before of [undefined, "msg_01jd0000000000000000000000"]) {
        listings.length = 0;
        await store.listMessages("env_1", filter, 50, before);
        const [listing] = listings;
        if (!listing) throw new Error(`no listing statement for ${JSON.stringify(filter)}`);
        const plan = query(`EXPLAIN QUERY PLAN ${listing.sql}`)
          .all(listing.params as never)
          .map((row) => (row as { detail: string }).detail)
          .join(" | ");
        expect({ filter, plan }).toEqual({ filter, plan: expect.stringContaining(`USING INDEX ${index}`) });
        // Only the pending messages (the ones waiting for a delivery round: few) are sorted by id.
        if (filter.status !== "pending") {
          expect({ filter, plan }).toEqual({ filter, plan: expect.not.stringContaining("TEMP B-TREE") });
        }
      }
    }
    await store.close();
  });
});
