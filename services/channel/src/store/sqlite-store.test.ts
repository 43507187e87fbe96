import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit } from "@junction/bus/group-commit";
import { openDatabase } from "@junction/platform";
import type { ChannelFilter } from "./records.ts";
import { EXPIRE_SQL, listSql, MIGRATIONS } from "./sqlite-schema.ts";
import { SqliteChannelStore } from "./sqlite-store.ts";
import { channelStoreConformance } from "./store.conformance.ts";

const root = mkdtempSync(join(tmpdir(), "junction-channel-store-"));
let files = 0;
const freshPath = () => join(root, `store-${++files}`, "channel.sqlite");

afterAll(() => rmSync(root, { recursive: true, force: true }));

channelStoreConformance("SqliteChannelStore", async () => {
  const store = SqliteChannelStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

/** A watch of channel ch-1 made at 1 000, without expiration or token. */
const WATCH = {
  environmentId: "env_1",
  channelId: "ch-1",
  resourceId: "res-1",
  providerConfigKey: "cal",
  connectionId: "conn-1",
  resourceUri: "https://calendar.example.test/calendars/primary/events",
  expiration: null,
  token: null,
  at: 1_000,
};

describe("SqliteChannelStore", () => {
  test("migrations apply once, however often the file is opened", async () => {
    const path = freshPath();
    await SqliteChannelStore.open(path).close();
    await SqliteChannelStore.open(path).close();
    const db = openDatabase(path);
    const versions = db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations WHERE component = 'channel'")
      .all();
    db.close();
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  test("data survives reopening the file", async () => {
    const path = freshPath();
    const first = SqliteChannelStore.open(path);
    await first.recordWatch({ ...WATCH, expiration: 2_000, token: "tok" });
    await first.close();
    const second = SqliteChannelStore.open(path);
    expect(await second.get("env_1", "ch-1", 1_500)).toMatchObject({ resourceId: "res-1", token: "tok" });
    await second.close();
  });

  test("a notification's number is written in the turn's transaction of the file's group commit, not in one of its own", async () => {
    const db = openDatabase(":memory:");
    const store = new SqliteChannelStore(db);
    await store.recordWatch(WATCH);
    const stored = () =>
      db.query<{ n: number }, []>("SELECT last_message_number AS n FROM channels WHERE id = 'ch-1'").get()?.n;
    const recorded = [
      store.recordNotification("env_1", "ch-1", 7, 2_000),
      store.recordNotification("env_1", "ch-1", 5, 2_000),
    ];
    // Asked for, not yet written: the turn's writes (the bus's jobs, the webhook store's) commit together.
    expect(stored()).toBe(0);
    GroupCommit.forDatabase(db).flush();
    expect(stored()).toBe(7);
    // Each answers the channel as it stands after its write: the older number changed nothing.
    expect((await Promise.all(recorded)).map((c) => c?.lastMessageNumber)).toEqual([7, 7]);
    await store.close();
  });

  test("shares a database with other components", async () => {
    const db = openDatabase(":memory:");
    db.exec("CREATE TABLE other (x INTEGER)");
    const store = new SqliteChannelStore(db);
    expect(await store.list("env_1", {}, 0)).toEqual([]);
    await store.close();
  });

  test("every listing filter and the expiry sweep are index searches", async () => {
    const db = openDatabase(":memory:");
    const store = new SqliteChannelStore(db);
    const plan = (sql: string) =>
      db
        .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql.replaceAll(/\$\w+/g, "1")}`)
        .all()
        .map((r) => r.detail)
        .join("; ");
    const filters: [ChannelFilter, string][] = [
      [{}, "channels_newest"],
      [{ providerConfigKey: "cal" }, "channels_by_integration"],
      [{ connectionId: "conn-1" }, "channels_by_connection"],
      [{ providerConfigKey: "cal", connectionId: "conn-1" }, "channels_by_"],
      [{ state: "stopped" }, "channels_"],
      [{ state: "active" }, "channels_"],
      [{ expiringBefore: 1 }, "channels_"],
    ];
    for (const [filter, index] of filters) {
      expect(plan(listSql(filter)), JSON.stringify(filter)).toMatch(
        new RegExp(`SEARCH channels USING (COVERING )?INDEX ${index}`),
      );
    }
    expect(plan(EXPIRE_SQL)).toMatch(/SEARCH channels USING (COVERING )?INDEX channels_by_state_expiration/);
    await store.close();
  });
});
