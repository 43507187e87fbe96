import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import { serviceStoreConformance } from "./service-store.conformance.ts";
import { SqliteScriptsServiceStore } from "./sqlite-service-store.ts";

const root = mkdtempSync(join(tmpdir(), "junction-scripts-service-store-"));
let files = 0;
const freshPath = () => join(root, `store-${++files}`, "scripts.sqlite");
afterAll(() => rmSync(root, { recursive: true, force: true }));

serviceStoreConformance("SqliteScriptsServiceStore", async () => {
  const store = SqliteScriptsServiceStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

describe("SqliteScriptsServiceStore", () => {
  test("two handles on one file claim each due time once", async () => {
    const path = freshPath();
    const a = SqliteScriptsServiceStore.open(path);
    const b = SqliteScriptsServiceStore.open(path);
    const key = { environmentId: "e", providerConfigKey: "p", scriptName: "s", connectionId: "c" };
    await a.ensureSchedules([{ ...key, nextDueAt: 1000 }]);
    const outcomes = await Promise.all([
      a.claimDue(key, 1000, 2000, { holder: "a", until: 5000 }, 1000),
      b.claimDue(key, 1000, 2000, { holder: "b", until: 5000 }, 1000),
    ]);
    expect(outcomes.sort()).toEqual(["claimed", "lost"]);
    await a.close();
    await b.close();
  });

  test("finding due rows and due follow-ups is an index search", () => {
    const db = openDatabase(freshPath());
    new SqliteScriptsServiceStore(db);
    const plan = db
      .query<{ detail: string }, []>(
        "EXPLAIN QUERY PLAN SELECT * FROM sync_schedules WHERE next_due_at IS NOT NULL AND next_due_at <= 5 ORDER BY next_due_at LIMIT 10",
      )
      .all()
      .map((r) => r.detail)
      .join("\n");
    const followUps = db
      .query<{ detail: string }, []>(
        "EXPLAIN QUERY PLAN SELECT * FROM sync_schedules WHERE follow_up_at IS NOT NULL AND follow_up_at <= 5 ORDER BY follow_up_at LIMIT 10",
      )
      .all()
      .map((r) => r.detail)
      .join("\n");
    db.close();
    expect(plan).toContain("USING INDEX sync_schedules_due");
    expect(plan).not.toContain("TEMP B-TREE");
    expect(followUps).toContain("USING INDEX sync_schedules_follow_up");
    expect(followUps).not.toContain("TEMP B-TREE");
  });
});
