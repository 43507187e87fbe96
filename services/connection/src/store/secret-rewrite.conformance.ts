import { describe, expect, test } from "bun:test";
import type { ConnectionRecord, IntegrationRecord } from "./records.ts";
import type { ConnectionServiceStore } from "./store.ts";

const ENV = "env_conformance";
const T0 = 1_767_225_600_000;

const integration = (uniqueKey: string, clientSecretEnc: string | null): IntegrationRecord => ({
  environmentId: ENV,
  uniqueKey,
  provider: "google-calendar",
  displayName: uniqueKey,
  clientId: "client-id",
  clientSecretEnc,
  scopes: [],
  overrides: {},
  forwardWebhooks: true,
  useTestCredentials: false,
  createdAt: T0,
  updatedAt: T0,
});

const connection = (
  id: string,
  pck: string,
  connectionId: string,
  credentialsEnc: string | null,
): ConnectionRecord => ({
  id,
  environmentId: ENV,
  providerConfigKey: pck,
  connectionId,
  provider: "google-calendar",
  credentialsEnc,
  credentialsExpiresAt: null,
  connectionConfig: {},
  metadata: {},
  endUser: null,
  errors: [],
  tags: {},
  createdAt: T0,
  updatedAt: T0,
});

/**
 * Reading and rewriting sealed secrets for `junction rekey` (SecretRewriteStore) and the reseal of a
 * rename: registered by connectionStoreConformance for every ConnectionServiceStore implementation.
 */
export function secretRewriteConformance(store: () => ConnectionServiceStore): void {
  describe("sealed secrets (rekey)", () => {
    test("credentials are scanned in id order from a cursor, in pages, skipping connections without any", async () => {
      await store().insertIntegration(integration("cal", null));
      for (const [id, cid, enc] of [
        ["conn_03", "c3", "enc-3"],
        ["conn_01", "c1", "enc-1"],
        ["conn_02", "c2", null],
        ["conn_04", "c4", "enc-4"],
      ] as const) {
        await store().upsertConnection(connection(id, "cal", cid, enc));
      }
      const first = await store().secrets.scanCredentials("", 2);
      expect(first).toEqual([
        { id: "conn_01", environmentId: ENV, providerConfigKey: "cal", connectionId: "c1", credentialsEnc: "enc-1" },
        { id: "conn_03", environmentId: ENV, providerConfigKey: "cal", connectionId: "c3", credentialsEnc: "enc-3" },
      ]);
      const rest = await store().secrets.scanCredentials("conn_03", 2);
      expect(rest.map((r) => r.id)).toEqual(["conn_04"]);
      expect(await store().secrets.scanCredentials("conn_04", 2)).toEqual([]);
    });

    test("a credentials swap is compare-and-set: a write since the read is kept", async () => {
      await store().insertIntegration(integration("cal", null));
      await store().upsertConnection(connection("conn_01", "cal", "c1", "enc-old"));
      expect(await store().secrets.swapCredentials("conn_01", "enc-old", "enc-new")).toBe(true);
      expect((await store().getConnection(ENV, "cal", "c1"))?.credentialsEnc).toBe("enc-new");
      // A refresh writes between rekey's read and its swap: the swap does nothing.
      await store().patchConnection(ENV, "cal", "c1", { credentialsEnc: "enc-refreshed" }, T0 + 1);
      expect(await store().secrets.swapCredentials("conn_01", "enc-new", "enc-rekeyed")).toBe(false);
      expect((await store().getConnection(ENV, "cal", "c1"))?.credentialsEnc).toBe("enc-refreshed");
      expect(await store().secrets.swapCredentials("conn_missing", "x", "y")).toBe(false);
    });

    test("client secrets are scanned and swapped compare-and-set", async () => {
      await store().insertIntegration(integration("b-cal", "sec-b"));
      await store().insertIntegration(integration("a-cal", "sec-a"));
      await store().insertIntegration(integration("none", null));
      expect(await store().secrets.scanClientSecrets()).toEqual([
        { environmentId: ENV, uniqueKey: "a-cal", clientSecretEnc: "sec-a" },
        { environmentId: ENV, uniqueKey: "b-cal", clientSecretEnc: "sec-b" },
      ]);
      expect(await store().secrets.swapClientSecret(ENV, "a-cal", "sec-a", "sec-a2")).toBe(true);
      expect(await store().secrets.swapClientSecret(ENV, "b-cal", "stale", "sec-b2")).toBe(false);
      expect((await store().getIntegration(ENV, "a-cal"))?.clientSecretEnc).toBe("sec-a2");
      expect((await store().getIntegration(ENV, "b-cal"))?.clientSecretEnc).toBe("sec-b");
    });

    test("a rename reseals the moved connections' credentials in the same change", async () => {
      await store().insertIntegration(integration("cal", null));
      await store().upsertConnection(connection("conn_01", "cal", "c1", "enc-1"));
      await store().upsertConnection(connection("conn_02", "cal", "c2", null));
      const seen: string[] = [];
      const renamed = { ...integration("calendar", null), updatedAt: T0 + 1 };
      const ok = await store().replaceIntegration(ENV, "cal", renamed, (moved) => {
        seen.push(`${moved.providerConfigKey}/${moved.connectionId}`);
        return `${moved.credentialsEnc}-for-calendar`;
      });
      expect(ok).toBe(true);
      // The reseal sees the row before the move (the key the credentials were sealed for).
      expect(seen).toEqual(["cal/c1"]);
      expect((await store().getConnection(ENV, "calendar", "c1"))?.credentialsEnc).toBe("enc-1-for-calendar");
      expect((await store().getConnection(ENV, "calendar", "c2"))?.credentialsEnc).toBeNull();
    });
  });
}
