import { afterEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteConnectionStore } from "@junction/connection-service/store/sqlite-store";
import { Encryptor, openDatabase, secretContext } from "@junction/platform";
import { currentSigningSecrets, ensureSettings, SqliteWebhookStore } from "@junction/webhook-service";
import { ChannelTokens, SqliteChannelStore } from "@junction/channel-service";
import { runRekeyCommand } from "./rekey-command.ts";
import { legacySeal } from "@junction/platform/testing/legacy-envelope";

const ENV = "env_rekey";
const T0 = 1_767_225_600_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An embedded data dir holding old-format secrets under `oldKey`: 5 connections, a client secret, signing secrets. */
async function seed(oldKey: Buffer): Promise<{ dir: string; signing: string }> {
  const dir = mkdtempSync(join(tmpdir(), "junction-rekey-"));
  dirs.push(dir);
  const db = openDatabase(join(dir, "junction.sqlite"));
  const store = new SqliteConnectionStore(db);
  await store.getOrCreateEnvironment(() => ({ id: ENV, name: "default", createdAt: T0 }));
  await store.insertIntegration({
    environmentId: ENV,
    uniqueKey: "cal",
    provider: "google-calendar",
    displayName: "Calendar",
    clientId: "client",
    clientSecretEnc: legacySeal(oldKey, "client-secret"),
    scopes: [],
    overrides: {},
    forwardWebhooks: true,
    useTestCredentials: false,
    createdAt: T0,
    updatedAt: T0,
  });
  for (let i = 0; i < 5; i++) {
    await store.upsertConnection({
      id: `conn_${i}`,
      environmentId: ENV,
      providerConfigKey: "cal",
      connectionId: `c${i}`,
      provider: "google-calendar",
      credentialsEnc: legacySeal(oldKey, JSON.stringify({ type: "API_KEY", accessToken: "", apiKey: `key-${i}` })),
      credentialsExpiresAt: null,
      connectionConfig: {},
      metadata: {},
      endUser: null,
      errors: [],
      tags: {},
      createdAt: T0,
      updatedAt: T0,
    });
  }
  const webhooks = new SqliteWebhookStore(db);
  const old = new Encryptor(oldKey);
  const settings = await ensureSettings(webhooks, old, ENV, T0);
  const [signing] = await currentSigningSecrets(webhooks, old, ENV, T0);
  expect(settings.signingSecretEnc.startsWith("enc:v2:")).toBe(true);
  // A channel token stored as given (before tokens were sealed) and one sealed under the old key.
  const channels = new SqliteChannelStore(db);
  const watch = { environmentId: ENV, resourceId: "r", providerConfigKey: "cal", connectionId: "c0", at: T0 };
  const more = { resourceUri: "https://calendar.example.test/events", expiration: null };
  await channels.recordWatch({ ...watch, ...more, channelId: "ch-plain", token: "plain-token" });
  const sealed = new ChannelTokens(old).seal(ENV, "ch-old", "old-token");
  await channels.recordWatch({ ...watch, ...more, channelId: "ch-old", ...sealed });
  await store.close();
  return { dir, signing: signing as string };
}

const quiet = () => {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, io: { out: (l: string) => lines.out.push(l), err: (l: string) => lines.err.push(l) } };
};

describe("junction rekey", () => {
  test("re-encrypts every secret under the new key; interrupted it resumes; after it the old key can be removed", async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const { dir, signing } = await seed(oldKey);
    const both = {
      JUNCTION_DATA_DIR: dir,
      JUNCTION_ENCRYPTION_KEYS: `new:${newKey.toString("base64")},old:${oldKey.toString("base64")}`,
    };
    let asked = 0;
    const stopped = quiet();
    expect(await runRekeyCommand(["--batch", "2"], both, stopped.io, () => ++asked > 3)).toBe(130);
    expect(stopped.lines.out.join("\n")).toContain("3 rewritten");
    expect(stopped.lines.err.join("\n")).toContain("run junction rekey again");

    const resumed = quiet();
    expect(await runRekeyCommand(["--batch", "2"], both, resumed.io)).toBe(0);
    expect(resumed.lines.out.join("\n")).toContain("3 rewritten, 3 already current");
    expect(resumed.lines.out.join("\n")).toContain("1 webhook signing secret record(s) rewritten");
    expect(resumed.lines.out.join("\n")).toContain("2 channel token(s) rewritten");

    // The old key is gone from the configuration: everything still opens, nothing is left to do.
    const newOnly = { JUNCTION_DATA_DIR: dir, JUNCTION_ENCRYPTION_KEYS: `new:${newKey.toString("base64")}` };
    const again = quiet();
    // Nothing unbound is left either: refusing that format changes nothing.
    const strict = { ...newOnly, JUNCTION_ENCRYPTION_ACCEPT_UNBOUND: "false" };
    expect(await runRekeyCommand([], strict, again.io)).toBe(0);
    expect(again.lines.out.join("\n")).toContain("0 rewritten, 6 already current");
    expect(again.lines.out.join("\n")).toContain("0 webhook signing secret record(s) rewritten");
    expect(again.lines.out.join("\n")).toContain("0 channel token(s) rewritten");
    const db = openDatabase(join(dir, "junction.sqlite"));
    const enc = new Encryptor({ id: "new", key: newKey });
    const webhooks = new SqliteWebhookStore(db);
    expect(await currentSigningSecrets(webhooks, enc, ENV, T0)).toEqual([signing]);
    const row = db.query("SELECT credentials_enc FROM connections WHERE connection_id = 'c4'").get() as {
      credentials_enc: string;
    };
    const opened = enc.decrypt(row.credentials_enc, secretContext("connection-credentials", ENV, "cal", "c4"));
    expect(JSON.parse(opened).apiKey).toBe("key-4");
    const tokens = new ChannelTokens(enc);
    const rows = db.query("SELECT environment_id, id, token, token_digest FROM channels ORDER BY id").all() as {
      environment_id: string;
      id: string;
      token: string;
      token_digest: string;
    }[];
    expect(JSON.stringify(rows)).not.toContain("-token");
    const opened2 = rows.map((r) =>
      tokens.open({ environmentId: r.environment_id, id: r.id, token: r.token, tokenDigest: r.token_digest }),
    );
    expect(opened2).toEqual(["old-token", "plain-token"]);
    db.close();
  });

  test("names a row whose secret does not open, never its value, and exits 1", async () => {
    const oldKey = randomBytes(32);
    const { dir } = await seed(oldKey);
    const unrelated = { JUNCTION_DATA_DIR: dir, JUNCTION_ENCRYPTION_KEYS: `k:${randomBytes(32).toString("base64")}` };
    const run = quiet();
    expect(await runRekeyCommand([], unrelated, run.io)).toBe(1);
    expect(run.lines.err).toContain("junction: cannot decrypt the secret of connection c0 of integration cal");
    expect(run.lines.err.join("\n")).not.toContain("key-0");
  });

  test("refuses a bad key list and unknown arguments", async () => {
    const run = quiet();
    expect(await runRekeyCommand([], { JUNCTION_ENCRYPTION_KEYS: "k:short" }, run.io)).toBe(78);
    expect(run.lines.err.join("\n")).toContain("JUNCTION_ENCRYPTION_KEYS: an encryption key must be 32 bytes");
    expect(await runRekeyCommand(["--force"], {}, run.io)).toBe(2);
  });
});
