import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import { LOOKUP_SQL, MIGRATIONS } from "./sqlite-schema.ts";
import { SqliteConnectionStore } from "./sqlite-store.ts";
import { connectionStoreConformance } from "./store.conformance.ts";

const root = mkdtempSync(join(tmpdir(), "junction-connection-store-"));
let files = 0;
const freshPath = () => join(root, `store-${++files}`, "connection.sqlite");

afterAll(() => rmSync(root, { recursive: true, force: true }));

connectionStoreConformance("SqliteConnectionStore", async () => {
  const store = SqliteConnectionStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

describe("SqliteConnectionStore", () => {
  test("migrations apply once, however often the file is opened", async () => {
    const path = freshPath();
    await SqliteConnectionStore.open(path).close();
    await SqliteConnectionStore.open(path).close();
    const db = openDatabase(path);
    const versions = db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations WHERE component = 'connection'")
      .all();
    db.close();
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  test("data survives reopening the file", async () => {
    const path = freshPath();
    const first = SqliteConnectionStore.open(path);
    await first.upsertConnection({
      id: "conn_01kbzzzzzzzzzzzzzzzzzzzzzz",
      environmentId: "env_1",
      providerConfigKey: "cal",
      connectionId: "c1",
      provider: "google-calendar",
      credentialsEnc: "v1:enc",
      credentialsExpiresAt: null,
      connectionConfig: { emailAddressHash: "h" },
      metadata: { calendarWatchResourceUris: ["https://cal.example.test/calendars/a"], email: "A@x.test" },
      endUser: { id: "u1" },
      errors: [],
      createdAt: 1,
      updatedAt: 2,
    });
    await first.close();

    const second = SqliteConnectionStore.open(path);
    expect((await second.getConnection("env_1", "cal", "c1"))?.endUser).toEqual({ id: "u1" });
    expect(await second.findByWatchUri("env_1", "cal", "https://cal.example.test/calendars/a")).toEqual(["c1"]);
    expect(await second.findByEmailHash("env_1", "cal", "h")).toEqual(["c1"]);
    expect(await second.findByMetadataEmail("env_1", "cal", "a@x.test")).toEqual(["c1"]);
    await second.close();
  });

  test.each(Object.keys(LOOKUP_SQL) as (keyof typeof LOOKUP_SQL)[])(
    "the %s lookup is an index search, not a scan",
    async (name) => {
      const path = freshPath();
      await SqliteConnectionStore.open(path).close();
      const db = openDatabase(path);
      const plan = db
        .query<{ detail: string }, [Record<string, string>]>(`EXPLAIN QUERY PLAN ${LOOKUP_SQL[name]}`)
        .all({ environment_id: "env_1", provider_config_key: "cal", value: "x" })
        .map((row) => row.detail);
      db.close();
      expect(plan.length).toBeGreaterThan(0);
      for (const step of plan) {
        expect(step).not.toMatch(/^SCAN/);
        expect(step).toMatch(/^SEARCH .* USING (COVERING )?INDEX /);
      }
    },
  );
});
