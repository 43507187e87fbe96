import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { newId } from "@junction/platform";
import type { WebhookSettingsRecord } from "./records.ts";
import type { WebhookSettingsStore } from "./store.ts";

/** A fresh, empty store and how to dispose of it. */
export type StoreFactory = () => Promise<{ store: WebhookSettingsStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";
const OTHER_ENV = "env_other";
const T0 = 1_767_225_600_000;

/** A valid first-version record; the secrets are opaque strings to the store. */
function settings(over: Partial<WebhookSettingsRecord> = {}): WebhookSettingsRecord {
  return {
    environmentId: ENV,
    version: 1,
    endpoints: [],
    signingSecretEnc: "enc:v1:k:iv:current",
    signingSecretPrefix: "whsec_abcd",
    previousSigningSecretEnc: null,
    previousSecretValidUntil: null,
    signingSecretShown: false,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/**
 * The behaviour every WebhookSettingsStore must have, registered as bun:test tests against a fresh
 * store per test. Run by each implementation's test file.
 */
export function webhookSettingsStoreConformance(name: string, factory: StoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: WebhookSettingsStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    test("returns null for an environment with no settings", async () => {
      expect(await store.getSettings(ENV)).toBeNull();
    });

    test("saves the first version and reads every field back", async () => {
      const rec = settings({
        endpoints: [
          { id: newId("ep", T0), url: "https://b.example.com/hooks", enabled: true, createdAt: T0 },
          { id: newId("ep", T0 + 1), url: "https://a.example.com/hooks?x=1", enabled: false, createdAt: T0 + 1 },
        ],
        previousSigningSecretEnc: "enc:v1:k:iv:previous",
        previousSecretValidUntil: T0 + 86_400_000,
        signingSecretShown: true,
      });
      expect(await store.saveSettings(rec)).toBe(true);
      expect(await store.getSettings(ENV)).toEqual(rec);
    });

    test("keeps an endpoint's health fields, and leaves them out when unset", async () => {
      const rec = settings({
        endpoints: [
          {
            id: "ep_1",
            url: "https://a.example.com",
            enabled: false,
            createdAt: T0,
            disabledReason: "failing since 2026-01-01T00:00:00.000Z: HTTP 500",
            failingSince: T0 - 5 * 86_400_000,
          },
          { id: "ep_2", url: "https://b.example.com", enabled: true, createdAt: T0, failingSince: T0 - 1000 },
          { id: "ep_3", url: "https://c.example.com", enabled: true, createdAt: T0 },
        ],
      });
      await store.saveSettings(rec);
      const got = await store.getSettings(ENV);
      expect(got).toEqual(rec);
      expect(Object.keys(got?.endpoints[2] ?? {}).sort()).toEqual(["createdAt", "enabled", "id", "url"]);
    });

    test("keeps null previous-secret fields null", async () => {
      await store.saveSettings(settings());
      const got = await store.getSettings(ENV);
      expect(got?.previousSigningSecretEnc).toBeNull();
      expect(got?.previousSecretValidUntil).toBeNull();
    });

    test("refuses a second first version and keeps the first", async () => {
      expect(await store.saveSettings(settings())).toBe(true);
      expect(await store.saveSettings(settings({ signingSecretEnc: "enc:v1:k:iv:other" }))).toBe(false);
      expect((await store.getSettings(ENV))?.signingSecretEnc).toBe("enc:v1:k:iv:current");
    });

    test("replaces the whole record at the next version", async () => {
      await store.saveSettings(
        settings({ endpoints: [{ id: "ep_1", url: "https://old.example.com", enabled: true, createdAt: T0 }] }),
      );
      const next = settings({
        version: 2,
        endpoints: [{ id: "ep_2", url: "https://new.example.com", enabled: true, createdAt: T0 + 5 }],
        signingSecretEnc: "enc:v1:k:iv:rotated",
        signingSecretPrefix: "whsec_wxyz",
        previousSigningSecretEnc: "enc:v1:k:iv:current",
        previousSecretValidUntil: T0 + 1000,
        updatedAt: T0 + 5,
      });
      expect(await store.saveSettings(next)).toBe(true);
      expect(await store.getSettings(ENV)).toEqual(next);
    });

    test("refuses a stale or skipped version and writes nothing", async () => {
      await store.saveSettings(settings());
      expect(await store.saveSettings(settings({ version: 2, signingSecretPrefix: "whsec_two_" }))).toBe(true);
      expect(await store.saveSettings(settings({ version: 2, signingSecretPrefix: "whsec_lost" }))).toBe(false);
      expect(await store.saveSettings(settings({ version: 4, signingSecretPrefix: "whsec_skip" }))).toBe(false);
      const got = await store.getSettings(ENV);
      expect(got?.version).toBe(2);
      expect(got?.signingSecretPrefix).toBe("whsec_two_");
    });

    test("refuses a later version when nothing is stored yet", async () => {
      expect(await store.saveSettings(settings({ version: 2 }))).toBe(false);
      expect(await store.getSettings(ENV)).toBeNull();
    });

    test("lets exactly one of several concurrent writers of the same version win", async () => {
      await store.saveSettings(settings());
      const results = await Promise.all(
        ["a", "b", "c", "d"].map((s) =>
          store.saveSettings(settings({ version: 2, signingSecretPrefix: `whsec_${s}` })),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ["a", "b", "c", "d"][results.indexOf(true)];
      expect((await store.getSettings(ENV))?.signingSecretPrefix).toBe(`whsec_${winner}`);
    });

    test("keeps environments apart", async () => {
      await store.saveSettings(settings());
      await store.saveSettings(settings({ environmentId: OTHER_ENV, signingSecretPrefix: "whsec_othr" }));
      expect((await store.getSettings(ENV))?.signingSecretPrefix).toBe("whsec_abcd");
      expect((await store.getSettings(OTHER_ENV))?.signingSecretPrefix).toBe("whsec_othr");
      expect(await store.saveSettings(settings({ environmentId: OTHER_ENV, version: 2 }))).toBe(true);
      expect((await store.getSettings(ENV))?.version).toBe(1);
    });

    test("hands out copies: changing a returned record changes nothing stored", async () => {
      await store.saveSettings(
        settings({ endpoints: [{ id: "ep_1", url: "https://a.example.com", enabled: true, createdAt: T0 }] }),
      );
      const got = (await store.getSettings(ENV)) as WebhookSettingsRecord;
      got.endpoints.push({ id: "ep_2", url: "https://b.example.com", enabled: true, createdAt: T0 });
      (got.endpoints[0] as { enabled: boolean }).enabled = false;
      expect((await store.getSettings(ENV))?.endpoints).toEqual([
        { id: "ep_1", url: "https://a.example.com", enabled: true, createdAt: T0 },
      ]);
    });
  });
}
