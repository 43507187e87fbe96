import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import { MIGRATIONS } from "./sqlite-schema.ts";
import { SqliteWebhookStore } from "./sqlite-store.ts";
import { deliveryStoreConformance } from "./delivery-store.conformance.ts";
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
});
