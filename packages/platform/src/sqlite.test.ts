import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "./sqlite.ts";

const root = mkdtempSync(join(tmpdir(), "junction-sqlite-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a database file opens in WAL mode, synced at checkpoints, checkpointing every 10 000 pages", () => {
  const db = openDatabase(join(root, "nested", "data.sqlite"));
  const pragma = (name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("synchronous")).toBe(1); // NORMAL
  expect(pragma("wal_autocheckpoint")).toBe(10000);
  expect(pragma("foreign_keys")).toBe(1);
  db.close();
});
