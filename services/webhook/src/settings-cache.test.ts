import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Encryptor, ManualClock, openDatabase } from "@junction/platform";
import { changeSettings } from "./settings.ts";
import { SETTINGS_FRESH_MS, SettingsCache } from "./settings-cache.ts";
import { SqliteWebhookStore } from "./store/sqlite-store.ts";

const ENV = "env_settingscache";
const root = mkdtempSync(join(tmpdir(), "junction-settings-cache-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** A cache over a SQLite store whose settings reads are counted. */
function setup() {
  const store = new SqliteWebhookStore(openDatabase(join(root, `s-${++files}`, "webhook.sqlite")));
  const reads: { n: number; held?: Promise<void> } = { n: 0 };
  const getSettings = store.getSettings.bind(store);
  store.getSettings = async (environmentId) => {
    reads.n++;
    // Read now, answered when the test lets it (a slow read).
    const record = await getSettings(environmentId);
    await reads.held;
    return record;
  };
  const encryptor = new Encryptor(randomBytes(32));
  const clock = new ManualClock();
  const cache = new SettingsCache(store, encryptor, clock);
  const endpoint = (url: string) => ({ id: `ep_${url.length}`, url, enabled: true, createdAt: clock.now() });
  return { store, reads, encryptor, clock, cache, endpoint };
}

describe("the delivery rounds' settings", () => {
  test("are read from the store once per interval, not once per message", async () => {
    const { reads, clock, cache } = setup();
    const first = await cache.current(ENV, clock.now());
    const before = reads.n;
    for (let i = 0; i < 50; i++) expect(await cache.current(ENV, clock.now())).toBe(first);
    expect(reads.n).toBe(before);
    await clock.advance(SETTINGS_FRESH_MS);
    await cache.current(ENV, clock.now());
    expect(reads.n).toBe(before + 1);
  });

  test("show this process's change at once, without reading the store", async () => {
    const { reads, clock, cache, endpoint } = setup();
    await cache.current(ENV, clock.now());
    const changed = await cache.change(ENV, () => ({ endpoints: [endpoint("https://a.example/hook")] }));
    const before = reads.n;
    const seen = await cache.current(ENV, clock.now());
    expect(seen.version).toBe(changed.version);
    expect(seen.endpoints.map((e) => e.url)).toEqual(["https://a.example/hook"]);
    expect(reads.n).toBe(before);
  });

  test("show another process's change once the interval has passed", async () => {
    const { store, encryptor, clock, cache, endpoint } = setup();
    await cache.current(ENV, clock.now());
    await changeSettings(store, encryptor, clock, ENV, () => ({ endpoints: [endpoint("https://b.example/hook")] }));
    expect((await cache.current(ENV, clock.now())).endpoints).toEqual([]);
    await clock.advance(SETTINGS_FRESH_MS);
    expect((await cache.current(ENV, clock.now())).endpoints.map((e) => e.url)).toEqual(["https://b.example/hook"]);
  });

  test("a read that started before a change does not bring the older version back", async () => {
    const { reads, clock, cache, endpoint } = setup();
    await cache.current(ENV, clock.now());
    await clock.advance(SETTINGS_FRESH_MS);
    // The round's read has the old version and is slow to answer; the change is saved meanwhile.
    let release = () => {};
    reads.held = new Promise((resolve) => {
      release = resolve;
    });
    const reading = cache.current(ENV, clock.now());
    await new Promise((resolve) => setImmediate(resolve));
    reads.held = undefined;
    const changed = await cache.change(ENV, () => ({ endpoints: [endpoint("https://c.example/hook")] }));
    release();
    expect((await reading).version).toBe(changed.version - 1);
    expect((await cache.current(ENV, clock.now())).version).toBe(changed.version);
  });

  test("after a change that failed, the next round reads the store", async () => {
    const { reads, clock, cache } = setup();
    await cache.current(ENV, clock.now());
    const failed = cache.change(ENV, () => {
      throw new Error("refused");
    });
    expect(failed).rejects.toThrow("refused");
    await failed.catch(() => {});
    const before = reads.n;
    await cache.current(ENV, clock.now());
    expect(reads.n).toBe(before + 1);
  });

  test("a clock set back does not keep an old read", async () => {
    const { reads, clock, cache } = setup();
    await clock.advance(10_000);
    await cache.current(ENV, clock.now());
    const before = reads.n;
    await cache.current(ENV, clock.now() - 1);
    expect(reads.n).toBe(before + 1);
  });
});
