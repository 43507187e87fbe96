import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, newId, openDatabase } from "@junction/platform";
import { scriptRunStoreConformance } from "./script-run-store.conformance.ts";
import { scriptStoreConformance } from "./script-store.conformance.ts";
import { MIGRATIONS } from "./sqlite-schema.ts";
import { SqliteScriptRunStore } from "./sqlite-script-run-store.ts";
import { SqliteScriptStore } from "./sqlite-script-store.ts";

const root = mkdtempSync(join(tmpdir(), "junction-scripts-store-"));
let files = 0;
const freshPath = () => join(root, `store-${++files}`, "scripts.sqlite");

afterAll(() => rmSync(root, { recursive: true, force: true }));

scriptRunStoreConformance("SqliteScriptRunStore", async (maxLogBytes) => {
  const store = SqliteScriptRunStore.open(freshPath(), maxLogBytes);
  return { store, cleanup: () => store.close() };
});

scriptStoreConformance("SqliteScriptStore", async () => {
  const store = SqliteScriptStore.open(freshPath());
  return { store, cleanup: () => store.close() };
});

describe("SQLite script stores", () => {
  test("both stores share one database file, migrated once", async () => {
    const db = openDatabase(freshPath());
    const runs = new SqliteScriptRunStore(db);
    const scripts = new SqliteScriptStore(db);
    await scripts.close();
    await runs.close();
    // a shared database stays open: it is its owner's to close
    const versions = db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations WHERE component = 'scripts'")
      .all();
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    db.close();
  });

  test("a database of runs recorded before callers were is migrated: old runs read without one", async () => {
    const path = freshPath();
    const db = openDatabase(path);
    migrate(db, "scripts", MIGRATIONS.slice(0, 2));
    const id = newId("run");
    db.query(
      `INSERT INTO script_runs (id, environment_id, provider_config_key, script_name, script_version, connection_id,
         trigger, entry, attempt, status, started_at, logs, logs_truncated, output)
       VALUES (?, 'env_1', 'cal', 'create-event', 1, 'c1', 'action', 'exec', 1, 'succeeded', 1, '[]', 0, '{"ok":1}')`,
    ).run(id);
    db.close();
    const runs = SqliteScriptRunStore.open(path);
    const old = await runs.get("env_1", id);
    expect(old?.output).toEqual({ ok: 1 });
    expect(old).not.toHaveProperty("caller");
    const caller = { kind: "secret_key" as const, name: "ci-bot", keyId: "key_1" };
    const { output: _output, ...ran } = old as NonNullable<typeof old>;
    const fresh = { ...ran, id: newId("run"), status: "running" as const, caller, input: { title: "x" } };
    await runs.insert(fresh);
    expect(await runs.get("env_1", fresh.id)).toEqual(fresh);
    await runs.close();
  });

  test("runs and scripts survive reopening the file", async () => {
    const path = freshPath();
    const runs = SqliteScriptRunStore.open(path);
    const id = newId("run");
    await runs.insert({
      id,
      environmentId: "env_1",
      providerConfigKey: "google-calendar",
      scriptName: "renewal",
      scriptVersion: 1,
      connectionId: "c1",
      trigger: "schedule",
      entry: "exec",
      attempt: 1,
      status: "running",
      startedAt: 1,
      finishedAt: null,
      durationMs: null,
      logs: [],
      logsTruncated: false,
      error: null,
    });
    await runs.close();
    const reopened = SqliteScriptRunStore.open(path);
    expect((await reopened.get("env_1", id))?.status).toBe("running");
    await reopened.close();
  });

  test.each([
    ["runs of a script", { provider_config_key: "p", script_name: "s" }, "script_runs_by_script"],
    ["runs of a connection", { connection_id: "c" }, "script_runs_by_connection"],
  ])("listing %s is an index search", (_, filter, index) => {
    const db = openDatabase(freshPath());
    new SqliteScriptRunStore(db);
    const where = Object.keys(filter).map((k) => `${k} = $${k}`);
    const plan = db
      .query<{ detail: string }, [Record<string, string | number>]>(
        `EXPLAIN QUERY PLAN SELECT * FROM script_runs WHERE environment_id = $environment_id AND ${where.join(" AND ")} ORDER BY id DESC LIMIT 10`,
      )
      .all({ environment_id: "e", ...filter })
      .map((r) => r.detail);
    db.close();
    expect(plan.join("\n")).toContain(`USING INDEX ${index}`);
    expect(plan.join("\n")).not.toContain("TEMP B-TREE");
  });
});
