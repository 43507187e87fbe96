import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, newId, openDatabase } from "@junction/platform";
import { emailAddressHash } from "../email-hash.ts";
import { connectionLookupKeys } from "./lookup-keys.ts";
import type { ConnectionRecord, IntegrationRecord } from "./records.ts";
import { BLOCK_SIZE, type BlockHash, blockOf, type MatchKind, matchKeysOf, sha256Block } from "./sqlite-match-keys.ts";
import { connectionToRow } from "./sqlite-rows.ts";
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
      tags: { team: "core" },
      createdAt: 1,
      updatedAt: 2,
    });
    await first.close();

    const second = SqliteConnectionStore.open(path);
    expect((await second.getConnection("env_1", "cal", "c1"))?.endUser).toEqual({ id: "u1" });
    expect((await second.getConnection("env_1", "cal", "c1"))?.tags).toEqual({ team: "core" });
    expect(await second.findByWatchUri("env_1", "cal", "https://cal.example.test/calendars/a")).toEqual(["c1"]);
    expect(await second.findByEmailHash("env_1", "cal", "h")).toEqual(["c1"]);
    expect(await second.findByMetadataEmail("env_1", "cal", "a@x.test")).toEqual(["c1"]);
    await second.close();
  });

  test.each(Object.keys(LOOKUP_SQL) as (keyof typeof LOOKUP_SQL)[])(
    "the %s lookup is a search of the integer primary key, not a scan",
    async (name) => {
      const path = freshPath();
      await SqliteConnectionStore.open(path).close();
      const db = openDatabase(path);
      const plan = db
        .query<{ detail: string }, [Record<string, string | number>]>(`EXPLAIN QUERY PLAN ${LOOKUP_SQL[name]}`)
        .all({
          first: 7 * BLOCK_SIZE,
          last: 8 * BLOCK_SIZE - 1,
          kind: 0,
          value: "x",
          hash: "h",
          nango_first: 9 * BLOCK_SIZE,
          nango_last: 10 * BLOCK_SIZE - 1,
          nango_hash: "n",
          email: "e",
          environment_id: "env_1",
          provider_config_key: "cal",
        })
        .map((row) => row.detail);
      db.close();
      const table = name === "watchUri" ? "connection_watch_keys" : "connection_email_keys";
      const search = `SEARCH ${table} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)`;
      // The override of each key found: one search of the connections' unique key, after the key's.
      const row =
        /^SEARCH connections USING INDEX \S+ \(environment_id=\? AND provider_config_key=\? AND connection_id=\?\)$/;
      // Rule 1's integration (provider, forwarding): a search of its primary key per column, once per lookup.
      const integrationRow = /^SEARCH integrations USING INDEX \S+ \(environment_id=\? AND unique_key=\?\)$/;
      const searches = plan
        .filter((d) => d.startsWith("SEARCH") || d.startsWith("SCAN"))
        .map((d) => (row.test(d) ? "row" : integrationRow.test(d) ? "integration" : d));
      // Rule 2 searches two blocks (Junction's and Nango's emailAddressHash formulas) in one statement.
      const expected = {
        watchUri: [search, "row", "integration", "integration"],
        emailKind: [search],
        email: [search, "row"],
        emailWithNango: [search, "row", search, "row"],
      };
      expect(searches).toEqual(expected[name]);
    },
  );

  test("rule 1 answers the integration's provider and forwarding with its matches, in the same statement", async () => {
    const store = SqliteConnectionStore.open(freshPath());
    const uri = "https://cal.example.test/calendars/a";
    await store.insertIntegration({ ...integration("cal"), forwardWebhooks: false });
    await store.upsertConnection(record("c1", { metadata: { calendarWatchResourceUris: [uri] } }));
    expect(await store.matchByWatchUri("env_1", "cal", uri)).toEqual({
      connectionIds: ["c1"],
      webhookUrlOverrides: {},
      integration: { provider: "google-calendar", forwardWebhooks: false },
    });
    // A connection whose integration row is missing (the store does not require one) matches without it.
    await store.upsertConnection(
      record("c2", { providerConfigKey: "orphan", metadata: { calendarWatchResourceUris: [uri] } }),
    );
    expect(await store.matchByWatchUri("env_1", "orphan", uri)).toEqual({
      connectionIds: ["c2"],
      webhookUrlOverrides: {},
    });
    await store.close();
  });

  test("blocks are the first 33 bits of SHA-256, forever (they are stored)", () => {
    expect(sha256Block("")).toBe(0xe3b0c442 * 2 + 1);
    expect(sha256Block("uri\u0000env_1\u0000cal\u0000https://cal.example.test/a")).toBe(266799868);
    expect(blockOf(sha256Block, "env_1", "cal", 0, "https://cal.example.test/a")).toBe(266799868 * BLOCK_SIZE);
    expect(Number.isSafeInteger(sha256Block("x") * BLOCK_SIZE + BLOCK_SIZE - 1)).toBe(true);
  });

  test("a hash collision never makes a false match: every row of a block is checked", async () => {
    // Every key in one block: the worst case of collisions.
    const path = freshPath();
    const store = SqliteConnectionStore.open(path, { blockHash: () => 7 });
    const uri = (s: string) => `https://cal.example.test/calendars/${s}`;
    const add = (connectionId: string, over: Partial<ConnectionRecord>) =>
      store.upsertConnection(record(connectionId, over));
    await add("c1", { metadata: { calendarWatchResourceUris: [uri("a")], email: "ada@x.test" } });
    await add("c2", { metadata: { calendarWatchResourceUris: [uri("b")] } });
    await add("c3", { providerConfigKey: "cal-2", metadata: { calendarWatchResourceUris: [uri("a")] } });
    await add("c4", { environmentId: "env_2", metadata: { calendarWatchResourceUris: [uri("a")] } });
    await add("c5", { connectionConfig: { emailAddressHash: "ada@x.test" } });
    await add("c6", { metadata: { emailAddress: uri("a") } });
    expect(await store.findByWatchUri("env_1", "cal", uri("a"))).toEqual(["c1"]);
    expect(await store.findByWatchUri("env_1", "cal", uri("b"))).toEqual(["c2"]);
    expect(await store.findByWatchUri("env_1", "cal-2", uri("a"))).toEqual(["c3"]);
    expect(await store.findByWatchUri("env_1", "cal", uri("c"))).toEqual([]);
    expect(await store.findByEmailHash("env_1", "cal", "ada@x.test")).toEqual(["c5"]);
    expect(await store.findByMetadataEmailAddress("env_1", "cal", uri("a"))).toEqual(["c6"]);
    expect(await store.findByEmail("env_1", "cal", "ADA@x.test")).toEqual({
      tier: "metadataEmail",
      connectionIds: ["c1"],
    });

    // A slot freed by a delete is taken again.
    await store.deleteConnection("env_1", "cal", "c2");
    await add("c7", { metadata: { calendarWatchResourceUris: [uri("b")] } });
    expect(await store.findByWatchUri("env_1", "cal", uri("b"))).toEqual(["c7"]);
    await store.close();
    const db = openDatabase(path);
    const slots = db
      .query<{ slot: number; connection_id: string }, []>(
        "SELECT slot, connection_id FROM connection_watch_keys ORDER BY slot",
      )
      .all();
    db.close();
    const first = 7 * BLOCK_SIZE;
    expect(slots).toEqual([
      { slot: first, connection_id: "c1" },
      { slot: first + 1, connection_id: "c7" },
      { slot: first + 2, connection_id: "c3" },
      { slot: first + 3, connection_id: "c4" },
    ]);
  });

  for (const [name, blockHash] of [
    ["SHA-256", sha256Block],
    ["colliding", (text: string) => text.length % 3],
  ] as const) {
    test(`match keys follow every write exactly (${name} blocks)`, async () => {
      const path = freshPath();
      const store = SqliteConnectionStore.open(path, { blockHash });
      const uris = (...s: string[]) => ({ calendarWatchResourceUris: s.map((x) => `https://cal.example.test/${x}`) });
      const check = () => expect(storedKeys(path, blockHash)).toEqual(expectedKeys(path, blockHash));
      await store.insertIntegration(integration("cal"));
      await store.insertIntegration(integration("gone"));
      await store.upsertConnection(record("c1", { metadata: { ...uris("a", "b", "a"), email: " A@x.test" } }));
      await store.upsertConnection(record("c2", { metadata: uris("a"), connectionConfig: { emailAddressHash: "h" } }));
      await store.upsertConnection(record("c3", { providerConfigKey: "gone", metadata: uris("a") }));
      await store.insertConnectionsBulk([record("c4", { metadata: { emailAddress: "a@x.test", email: "a@x.test" } })]);
      check();
      await store.upsertConnection(record("c2", { connectionConfig: { emailAddressHash: "h2" } }));
      await store.patchConnection("env_1", "cal", "c1", { connectionConfig: { emailAddressHash: "h3" } }, 5);
      await store.patchConnection("env_1", "cal", "c1", { errors: [] }, 6);
      check();
      await store.writeMetadata(
        "env_1",
        "cal",
        ["c1", "c4"],
        { ...uris("b", "c"), emailAddress: "B@x.test" },
        "update",
        7,
      );
      await store.writeMetadata("env_1", "cal", ["c2"], { email: "c@x.test" }, "set", 8);
      check();
      await store.replaceIntegration("env_1", "cal", { ...integration("cal"), uniqueKey: "cal-2" });
      expect(await store.findByWatchUri("env_1", "cal-2", "https://cal.example.test/c")).toEqual(["c1", "c4"]);
      expect(await store.findByWatchUri("env_1", "cal", "https://cal.example.test/c")).toEqual([]);
      check();
      await store.deleteConnection("env_1", "cal-2", "c4");
      await store.deleteIntegration("env_1", "gone");
      check();
      expect(storedKeys(path, blockHash).map((k) => k.connection_id)).toEqual([
        "c1",
        "c1",
        "c1",
        "c1",
        "c1",
        "c2",
        "c2",
      ]);
      await store.close();
    });
  }

  test("an existing database gets its match keys from its connections when it migrates", async () => {
    const path = freshPath();
    const db = openDatabase(path);
    migrate(db, "connection", MIGRATIONS.slice(0, 3));
    // Written as the store wrote them before the match-key tables existed.
    const uri = "https://cal.example.test/calendars/ada%40x.test/events";
    const old = [
      record("c1", { metadata: { calendarWatchResourceUris: [uri], emailAddress: "Ada@x.test" } }),
      record("c2", { connectionConfig: { emailAddressHash: emailAddressHash("bob@x.test") } }),
      record("c3", { providerConfigKey: "other", metadata: { email: "bob@x.test" } }),
    ];
    const insert = db.prepare<unknown, [Record<string, string | number | null>]>(
      "INSERT INTO connections (id, environment_id, provider_config_key, connection_id, provider, credentials_enc, credentials_expires_at, connection_config, metadata, end_user, errors, created_at, updated_at, email_address_hash, meta_email_address_norm, meta_email_norm, end_user_id) VALUES ($id, $environment_id, $provider_config_key, $connection_id, $provider, $credentials_enc, $credentials_expires_at, $connection_config, $metadata, $end_user, $errors, $created_at, $updated_at, $email_address_hash, $meta_email_address_norm, $meta_email_norm, $end_user_id)",
    );
    for (const c of old) insert.run(rowBeforeTags(c));
    db.prepare(
      "INSERT INTO connection_watch_uris (connection_pk, environment_id, provider_config_key, uri, connection_id) VALUES (?, 'env_1', 'cal', ?, 'c1')",
    ).run(old[0]?.id ?? "", uri);
    insert.finalize();
    db.close();

    const store = SqliteConnectionStore.open(path);
    expect(await store.findByWatchUri("env_1", "cal", uri)).toEqual(["c1"]);
    expect(await store.findByMetadataEmailAddress("env_1", "cal", "ada@x.test")).toEqual(["c1"]);
    expect(await store.findByEmail("env_1", "cal", "bob@x.test")).toEqual({
      tier: "emailAddressHash",
      connectionIds: ["c2"],
    });
    expect(await store.findByEmail("env_1", "other", "bob@x.test")).toEqual({
      tier: "metadataEmail",
      connectionIds: ["c3"],
    });
    await store.close();
    expect(storedKeys(path, sha256Block)).toEqual(expectedKeys(path, sha256Block));
    const check = openDatabase(path);
    const tables = check
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_schema WHERE name IN ('connection_watch_keys', 'connection_email_keys', 'connection_match_keys_backfill', 'connection_watch_uris', 'connections_by_email_hash') ORDER BY name",
      )
      .all()
      .map((t) => t.name);
    check.close();
    expect(tables).toEqual(["connection_email_keys", "connection_watch_keys"]);
    // Opening again does not fill it twice.
    await SqliteConnectionStore.open(path).close();
    expect(storedKeys(path, sha256Block)).toEqual(expectedKeys(path, sha256Block));
  });

  test("a store made before googleCalendarWatchResourceUris was read gets its keys rebuilt when it migrates", async () => {
    const path = freshPath();
    const db = openDatabase(path);
    migrate(db, "connection", MIGRATIONS.slice(0, 4));
    db.exec("DROP TABLE connection_match_keys_backfill");
    const google = "https://cal.example.test/calendars/nango%40x.test/events";
    const own = "https://cal.example.test/calendars/own%40x.test/events";
    const stored = record("c1", {
      metadata: { googleCalendarWatchResourceUris: [google], calendarWatchResourceUris: [own] },
    });
    const insert = db.prepare<unknown, [Record<string, string | number | null>]>(
      "INSERT INTO connections (id, environment_id, provider_config_key, connection_id, provider, credentials_enc, credentials_expires_at, connection_config, metadata, end_user, errors, created_at, updated_at, email_address_hash, meta_email_address_norm, meta_email_norm, end_user_id) VALUES ($id, $environment_id, $provider_config_key, $connection_id, $provider, $credentials_enc, $credentials_expires_at, $connection_config, $metadata, $end_user, $errors, $created_at, $updated_at, $email_address_hash, $meta_email_address_norm, $meta_email_norm, $end_user_id)",
    );
    insert.run(rowBeforeTags(stored));
    insert.finalize();
    // The key the store wrote then: calendarWatchResourceUris only.
    const [ownKey] = matchKeysOf(sha256Block, "env_1", "cal", { ...connectionLookupKeys(stored), watchUris: [own] });
    db.prepare(
      "INSERT INTO connection_watch_keys (slot, environment_id, provider_config_key, uri, connection_id) VALUES (?, 'env_1', 'cal', ?, 'c1')",
    ).run(ownKey?.first ?? 0, own);
    db.close();

    const store = SqliteConnectionStore.open(path);
    expect(await store.findByWatchUri("env_1", "cal", google)).toEqual(["c1"]);
    expect(await store.findByWatchUri("env_1", "cal", own)).toEqual(["c1"]);
    await store.close();
    expect(storedKeys(path, sha256Block)).toEqual(expectedKeys(path, sha256Block));
  });
});

/** A connection's row as written before migration 6 added tags. */
function rowBeforeTags(c: ConnectionRecord): Record<string, string | number | null> {
  const { tags: _tags, ...row } = connectionToRow(c);
  return row;
}

function record(connectionId: string, over: Partial<ConnectionRecord> = {}): ConnectionRecord {
  return {
    id: newId("conn"),
    environmentId: "env_1",
    providerConfigKey: "cal",
    connectionId,
    provider: "google-calendar",
    credentialsEnc: null,
    credentialsExpiresAt: null,
    connectionConfig: {},
    metadata: {},
    endUser: null,
    errors: [],
    tags: {},
    createdAt: 1,
    updatedAt: 1,
    ...over,
  };
}

function integration(uniqueKey: string): IntegrationRecord {
  return {
    environmentId: "env_1",
    uniqueKey,
    provider: "google-calendar",
    displayName: uniqueKey,
    clientId: "id",
    clientSecretEnc: null,
    scopes: [],
    overrides: {},
    forwardWebhooks: true,
    useTestCredentials: false,
    createdAt: 1,
    updatedAt: 1,
  };
}

interface KeyRow {
  environment_id: string;
  provider_config_key: string;
  kind: number;
  value: string;
  connection_id: string;
  first: number;
}

const byKey = (a: KeyRow, b: KeyRow) =>
  JSON.stringify([a.connection_id, a.kind, a.value, a.provider_config_key, a.environment_id]) <
  JSON.stringify([b.connection_id, b.kind, b.value, b.provider_config_key, b.environment_id])
    ? -1
    : 1;

/** The rows of the match-key tables, each with the first slot of the block it lies in. */
function storedKeys(path: string, blockHash: BlockHash): KeyRow[] {
  const db = openDatabase(path);
  const rows = db
    .query<Omit<KeyRow, "first"> & { slot: number }, []>(
      `SELECT slot, environment_id, provider_config_key, 0 AS kind, uri AS value, connection_id FROM connection_watch_keys
       UNION ALL SELECT slot, environment_id, provider_config_key, kind, value, connection_id FROM connection_email_keys`,
    )
    .all();
  db.close();
  return rows
    .map(({ slot, ...r }) => {
      const first = blockOf(blockHash, r.environment_id, r.provider_config_key, r.kind as MatchKind, r.value);
      // A row outside its block would never be found.
      expect(slot - first).toBeGreaterThanOrEqual(0);
      expect(slot - first).toBeLessThan(BLOCK_SIZE);
      return { ...r, first };
    })
    .sort(byKey);
}

/** The rows the match-key tables must hold, derived from the connections as stored. */
function expectedKeys(path: string, blockHash: BlockHash): KeyRow[] {
  const db = openDatabase(path);
  const rows = db
    .query<
      {
        environment_id: string;
        provider_config_key: string;
        connection_id: string;
        connection_config: string;
        metadata: string;
      },
      []
    >("SELECT environment_id, provider_config_key, connection_id, connection_config, metadata FROM connections")
    .all();
  db.close();
  return rows
    .flatMap((r) =>
      matchKeysOf(
        blockHash,
        r.environment_id,
        r.provider_config_key,
        connectionLookupKeys({
          connectionConfig: JSON.parse(r.connection_config),
          metadata: JSON.parse(r.metadata),
          endUser: null,
        }),
      ).map((k) => ({
        environment_id: r.environment_id,
        provider_config_key: r.provider_config_key,
        kind: k.kind,
        value: k.value,
        connection_id: r.connection_id,
        first: k.first,
      })),
    )
    .sort(byKey);
}
