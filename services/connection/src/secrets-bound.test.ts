import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Encryptor, fromConnectError } from "@junction/platform";
import { openCredentials } from "./credentials.ts";
import { KEY, useOAuthHarness } from "../testing/oauth-test-kit.ts";
import { rekeyConnectionSecrets } from "./rekey.ts";
import { secretContexts } from "./secret-contexts.ts";
import type { SecretRewriteStore } from "./store/secret-rewrite-store.ts";
import { legacySeal } from "@junction/platform/testing/legacy-envelope";

const token = (who: string) => ({
  type: "OAUTH2",
  accessToken: `ya29.${who}-secret`,
  refreshToken: `1//${who}-refresh`,
});

describe("credentials bound to their rows", () => {
  const harness = useOAuthHarness();

  test("a ciphertext copied into another connection's row does not decrypt there: a clear error, nothing leaked", async () => {
    const h = await harness.start();
    await h.integration("cal");
    for (const who of ["alice", "bob"]) {
      await h.client.createConnection({ providerConfigKey: "cal", connectionId: who, credentials: token(who) });
    }
    const env = (await h.client.getEnvironment({})).environment?.id as string;
    const alice = await h.store.getConnection(env, "cal", "alice");
    await h.store.patchConnection(env, "cal", "bob", { credentialsEnc: alice?.credentialsEnc }, h.clock.now());

    for (const call of [
      () => h.client.getConnection({ providerConfigKey: "cal", connectionId: "bob", includeCredentials: true }),
      () => h.client.getCredentials({ providerConfigKey: "cal", connectionId: "bob" }),
    ]) {
      const err = await call().then(() => null, fromConnectError);
      expect(err?.code).toBe("stored_secret_unreadable");
      expect(err?.message).toMatch(/sealed for another record, or altered/);
      expect(err?.message).not.toContain("alice");
    }
    // Nothing crashed: alice's own credentials still open, and the service answers.
    const own = await h.client.getConnection({
      providerConfigKey: "cal",
      connectionId: "alice",
      includeCredentials: true,
    });
    expect(own.credentials?.accessToken).toBe("ya29.alice-secret");
    expect((await h.client.listConnections({})).connections).toHaveLength(2);
    expect(h.logLines.join("\n")).not.toContain("alice-secret");
    expect(h.logLines.join("\n")).not.toContain("alice-refresh");
  });

  test("renaming an integration keeps its client secret and its connections' credentials readable", async () => {
    const h = await harness.start();
    await h.integration("cal");
    await h.client.createConnection({ providerConfigKey: "cal", connectionId: "alice", credentials: token("alice") });
    await h.client.updateIntegration({ uniqueKey: "cal", newUniqueKey: "calendar" });
    const got = await h.client.getConnection({
      providerConfigKey: "calendar",
      connectionId: "alice",
      includeCredentials: true,
    });
    expect(got.credentials?.accessToken).toBe("ya29.alice-secret");
    // The client secret opens too: a whole authorization (its code exchange uses it) succeeds.
    const done = await h.connect({ key: "calendar", endUserId: "carol" });
    expect(done.connectionId).not.toBe("");
  });

  test("rekey moves old-format and old-key secrets to the new key; interrupted, it goes on; then the old key can go", async () => {
    const h = await harness.start();
    await h.integration("cal");
    for (const who of ["alice", "bob", "carol"]) {
      await h.client.createConnection({ providerConfigKey: "cal", connectionId: who, credentials: token(who) });
    }
    const env = (await h.client.getEnvironment({})).environment?.id as string;
    // Dave's row holds data in the unbound format, no associated data.
    const legacy = legacySeal(
      Buffer.from(KEY, "base64"),
      JSON.stringify({ ...token("dave"), expiresAt: null, raw: {} }),
    );
    await h.client.createConnection({ providerConfigKey: "cal", connectionId: "dave", credentials: token("x") });
    await h.store.patchConnection(env, "cal", "dave", { credentialsEnc: legacy }, h.clock.now());

    const k2 = { id: "k2", key: randomBytes(32) };
    const rotated = new Encryptor(k2, [Buffer.from(KEY, "base64")]);
    let calls = 0;
    const first = await rekeyConnectionSecrets(h.store.secrets, rotated, {
      batchSize: 2,
      shouldStop: () => ++calls > 3,
    });
    expect(first).toMatchObject({ interrupted: true, rewritten: 3, unreadable: [] });
    const second = await rekeyConnectionSecrets(h.store.secrets, rotated, { batchSize: 2 });
    expect(second).toMatchObject({ interrupted: false, rewritten: 2, current: 3, raced: 0, unreadable: [] });

    const newOnly = new Encryptor(k2);
    const rows = await h.store.secrets.scanCredentials("", 10);
    expect(rows.map((r) => r.credentialsEnc.slice(0, 10))).toEqual(Array(4).fill("enc:v2:k2:"));
    const opened = rows.map((r) => openCredentials(newOnly, r, r.credentialsEnc).accessToken).sort();
    expect(opened).toEqual(["ya29.alice-secret", "ya29.bob-secret", "ya29.carol-secret", "ya29.dave-secret"]);
    const [secret] = await h.store.secrets.scanClientSecrets();
    const context = secretContexts.integrationClientSecret(env, "cal");
    expect(newOnly.decrypt(secret?.clientSecretEnc as string, context)).toBe("fake-client-secret");
  });

  test("rekey never overwrites a write made between its read and its swap", async () => {
    const h = await harness.start();
    await h.integration("cal");
    await h.client.createConnection({ providerConfigKey: "cal", connectionId: "alice", credentials: token("alice") });
    const env = (await h.client.getEnvironment({})).environment?.id as string;
    const rotated = new Encryptor({ id: "k2", key: randomBytes(32) }, [Buffer.from(KEY, "base64")]);
    const refreshed = rotated.encrypt(
      JSON.stringify({ ...token("alice-2"), expiresAt: null, raw: {} }),
      secretContexts.connectionCredentials({ environmentId: env, providerConfigKey: "cal", connectionId: "alice" }),
    );
    // A refresh lands between the scan and the swap.
    const racing: SecretRewriteStore = Object.assign(Object.create(h.store.secrets), {
      swapCredentials: async (id: string, expected: string, next: string) => {
        await h.store.patchConnection(env, "cal", "alice", { credentialsEnc: refreshed }, h.clock.now());
        return h.store.secrets.swapCredentials(id, expected, next);
      },
    });
    const counts = await rekeyConnectionSecrets(racing, rotated);
    expect(counts).toMatchObject({ raced: 1, rewritten: 1 });
    expect((await h.store.getConnection(env, "cal", "alice"))?.credentialsEnc).toBe(refreshed);
  });
});
