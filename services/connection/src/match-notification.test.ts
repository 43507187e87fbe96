import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { MemoryBus } from "@junction/bus";
import { ConnectionService, MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import {
  Encryptor,
  errorBoundary,
  fromConnectError,
  ManualClock,
  memoryLogger,
  openDatabase,
} from "@junction/platform";
import { randomBytes } from "node:crypto";
import { emailAddressHash } from "./email-hash.ts";
import { ProviderCatalog } from "./providers/catalog.ts";
import { createConnectionService } from "./service.ts";
import { SqliteConnectionStore } from "./store/sqlite-store.ts";

const uri = (calendar: string, query = "?alt=json") =>
  `https://www.googleapis.com/calendar/v3/calendars/${calendar}/events${query}`;

let client: Client<typeof ConnectionService>;
let store: SqliteConnectionStore;
let bus: MemoryBus;

beforeEach(async () => {
  const db = openDatabase(":memory:");
  store = new SqliteConnectionStore(db);
  bus = new MemoryBus();
  const logger = memoryLogger();
  const impl = createConnectionService({
    store,
    encryptor: new Encryptor(randomBytes(32)),
    clock: new ManualClock(),
    logger,
    bus,
    providers: new ProviderCatalog(),
    baseUrl: "https://junction.test",
  });
  client = createClient(
    ConnectionService,
    createRouterTransport((r) => r.service(ConnectionService, impl), {
      router: { interceptors: [errorBoundary(logger)] },
    }),
  );
  for (const key of ["cal", "cal-2"]) await client.createIntegration({ uniqueKey: key, provider: "google-calendar" });
});
afterEach(async () => {
  await bus.close();
  await store.close();
});

async function connection(id: string, opts: { metadata?: JsonObject; hash?: string; key?: string } = {}) {
  await client.createConnection({
    providerConfigKey: opts.key ?? "cal",
    connectionId: id,
    metadata: opts.metadata,
    connectionConfig: opts.hash ? { emailAddressHash: emailAddressHash(opts.hash) } : undefined,
  });
}

/** MatchNotifications with one notification: its result. */
async function matchOne(req: { providerConfigKey: string; resourceUri: string }) {
  const [result] = (await client.matchNotifications({ requests: [req] })).results;
  if (!result) throw new Error("MatchNotifications answered no result");
  return result;
}
const match = (resourceUri: string, key = "cal") => matchOne({ providerConfigKey: key, resourceUri });

describe("matching a notification to connections (spec: Webhook-to-connection matching)", () => {
  test("rule 1: the exact watch URI wins over the primary-calendar lookup", async () => {
    await connection("by-hash", { hash: "alice@example.com" });
    await connection("by-uri", { metadata: { calendarWatchResourceUris: [uri("alice%40example.com")] } });
    const res = await match(uri("alice%40example.com"));
    expect(res.connectionIds).toEqual(["by-uri"]);
    expect(res.rule).toBe(MatchRule.WATCH_URI);
  });

  test("rule 1 needs the same encoding, path and query", async () => {
    await connection("by-uri", { metadata: { calendarWatchResourceUris: [uri("alice%40example.com")] } });
    expect((await match(uri("alice@example.com"))).rule).not.toBe(MatchRule.WATCH_URI);
    expect((await match(uri("alice%40example.com", ""))).rule).not.toBe(MatchRule.WATCH_URI);
    expect((await match(uri("alice%40example.com", "?alt=json&x=1"))).rule).not.toBe(MatchRule.WATCH_URI);
  });

  test("rule 3: every connection listing the URI matches", async () => {
    const shared = uri("team%40example.com");
    await connection("a", { metadata: { calendarWatchResourceUris: [shared] } });
    await connection("b", { metadata: { calendarWatchResourceUris: ["other", shared] } });
    await connection("c", { metadata: { calendarWatchResourceUris: ["other"] } });
    expect((await match(shared)).connectionIds).toEqual(["a", "b"]);
  });

  test("rule 2 is tiered: hash, then metadata.emailAddress, then metadata.email; fan-out within a tier", async () => {
    await connection("hash-1", { hash: "Bob@Example.com" });
    await connection("hash-2", { hash: "bob@example.com" });
    await connection("meta-address", { metadata: { emailAddress: "bob@example.com" } });
    await connection("meta-email", { metadata: { email: "bob@example.com" } });
    let res = await match(uri("bob%40example.com"));
    expect(res.connectionIds).toEqual(["hash-1", "hash-2"]);
    expect(res.rule).toBe(MatchRule.EMAIL_ADDRESS_HASH);

    await client.deleteConnection({ providerConfigKey: "cal", connectionId: "hash-1" });
    await client.deleteConnection({ providerConfigKey: "cal", connectionId: "hash-2" });
    res = await match(uri("bob%40example.com"));
    expect(res.connectionIds).toEqual(["meta-address"]);
    expect(res.rule).toBe(MatchRule.METADATA_EMAIL_ADDRESS);

    await client.deleteConnection({ providerConfigKey: "cal", connectionId: "meta-address" });
    res = await match(uri("bob%40example.com"));
    expect(res.connectionIds).toEqual(["meta-email"]);
    expect(res.rule).toBe(MatchRule.METADATA_EMAIL);
  });

  test("an imported emailAddressHash of Nango's formula matches in the first tier of rule 2", async () => {
    const nangoHash = Bun.SHA256.hash("nango.emailAddressHash.v1:dan@example.com", "hex");
    await connection("by-address", { metadata: { emailAddress: "dan@example.com" } });
    await client.createConnection({
      providerConfigKey: "cal",
      connectionId: "imported",
      connectionConfig: { emailAddressHash: nangoHash },
    });
    const res = await match(uri("Dan%40example.com"));
    expect(res.connectionIds).toEqual(["imported"]);
    expect(res.rule).toBe(MatchRule.EMAIL_ADDRESS_HASH);
    // The batch form too.
    const batch = await client.matchNotifications({
      requests: [{ providerConfigKey: "cal", resourceUri: uri("dan%40example.com") }],
    });
    expect(batch.results[0]?.connectionIds).toEqual(["imported"]);
  });

  test("emails compare trimmed and case-insensitively, the identifier URL-decoded", async () => {
    await connection("carol", { metadata: { emailAddress: "  Carol@Example.COM " } });
    expect((await match(uri("CAROL%40example.com"))).connectionIds).toEqual(["carol"]);
    expect((await match(uri("carol@example.com"))).connectionIds).toEqual(["carol"]);
  });

  test("rule 4: nothing matched is not an error", async () => {
    await connection("dan", { metadata: { emailAddress: "dan@example.com" } });
    for (const u of [
      uri("nobody%40example.com"),
      "https://www.googleapis.com/calendar/v3/users/me/calendarList",
      "",
      uri("%E0%A4%A"),
    ]) {
      const res = await match(u);
      expect(res.connectionIds).toEqual([]);
      expect(res.rule).toBe(MatchRule.NONE);
    }
  });

  test("matching is scoped to the integration", async () => {
    await connection("other-integration", { key: "cal-2", metadata: { emailAddress: "eve@example.com" } });
    expect((await match(uri("eve%40example.com"))).connectionIds).toEqual([]);
    expect((await match(uri("eve%40example.com"), "cal-2")).connectionIds).toEqual(["other-integration"]);
  });

  test("rule 5: a connection without a hash is fixed by setting metadata.emailAddress", async () => {
    await connection("legacy");
    expect((await match(uri("legacy%40example.com"))).connectionIds).toEqual([]);
    await client.writeMetadata({
      providerConfigKey: "cal",
      connectionIds: ["legacy"],
      metadata: { emailAddress: "legacy@example.com" },
      mode: 2,
    });
    expect((await match(uri("legacy%40example.com"))).connectionIds).toEqual(["legacy"]);
  });
});

describe("MatchNotifications (the batch form)", () => {
  test("answers each notification in order, across integrations, as a batch of one would", async () => {
    await connection("ann", { metadata: { calendarWatchResourceUris: [uri("ann%40example.com")] } });
    await connection("bob", { metadata: { emailAddress: "bob@example.com" } });
    await connection("cat", { key: "cal-2", metadata: { email: "cat@example.com" } });
    const requests = [
      { providerConfigKey: "cal", resourceUri: uri("ann%40example.com") },
      { providerConfigKey: "cal", resourceUri: uri("bob%40example.com") },
      { providerConfigKey: "cal-2", resourceUri: uri("cat%40example.com") },
      { providerConfigKey: "cal", resourceUri: uri("cat%40example.com") },
    ];
    const { results } = await client.matchNotifications({ requests });
    const singles = [];
    for (const r of requests) singles.push(await matchOne(r));
    expect(results.map((r) => [r.connectionIds, r.rule])).toEqual(singles.map((r) => [r.connectionIds, r.rule]));
    expect(results.map((r) => r.connectionIds)).toEqual([["ann"], ["bob"], ["cat"], []]);
  });

  test("an email the notification names goes to rule 2's tiers; a connection id is matched exactly when it exists", async () => {
    await connection("bob", { metadata: { emailAddress: "bob@example.com" } });
    await connection("cat", { key: "cal-2", metadata: { email: "cat@example.com" } });
    const { results } = await client.matchNotifications({
      requests: [
        { providerConfigKey: "cal", email: " Bob@Example.com " },
        { providerConfigKey: "cal", email: "nobody@example.com" },
        { providerConfigKey: "cal", connectionId: "bob" },
        // Another integration's connection, or none: rule 4.
        { providerConfigKey: "cal", connectionId: "cat" },
        { providerConfigKey: "cal", connectionId: "gone" },
      ],
    });
    expect(results.map((r) => [r.connectionIds, r.rule])).toEqual([
      [["bob"], MatchRule.METADATA_EMAIL_ADDRESS],
      [[], MatchRule.NONE],
      [["bob"], MatchRule.CHANNEL],
      [[], MatchRule.NONE],
      [[], MatchRule.NONE],
    ]);
  });

  test("each answer carries the webhook URL overrides of its connections, whichever rule matched", async () => {
    const shared = uri("team%40example.com");
    await connection("a", { metadata: { calendarWatchResourceUris: [shared], emailAddress: "a@example.com" } });
    await connection("b", { metadata: { calendarWatchResourceUris: [shared] } });
    await client.updateConnection({
      providerConfigKey: "cal",
      connectionId: "a",
      webhookUrlOverride: "https://hooks.example.test/a",
    });
    const { results } = await client.matchNotifications({
      requests: [
        { providerConfigKey: "cal", resourceUri: shared },
        { providerConfigKey: "cal", email: "A@example.com" },
        { providerConfigKey: "cal", connectionId: "a" },
        { providerConfigKey: "cal", connectionId: "b" },
      ],
    });
    const overrides = { a: "https://hooks.example.test/a" };
    expect(results.map((r) => [r.connectionIds, r.webhookUrlOverrides])).toEqual([
      [["a", "b"], overrides],
      [["a"], overrides],
      [["a"], overrides],
      [["b"], {}],
    ]);
  });

  test("a watch-URI match answers the integration as it is now: forwarding turned off, then deleted", async () => {
    const watched = uri("a%40example.com");
    await connection("a", { metadata: { calendarWatchResourceUris: [watched] } });
    expect(await match(watched)).toMatchObject({
      connectionIds: ["a"],
      provider: "google-calendar",
      forwardWebhooks: true,
    });
    await client.updateIntegration({ uniqueKey: "cal", forwardWebhooks: false });
    expect(await match(watched)).toMatchObject({ connectionIds: ["a"], forwardWebhooks: false });
    await client.deleteIntegration({ uniqueKey: "cal", force: true });
    const err = await match(watched).catch((e: unknown) => fromConnectError(e));
    expect(err).toMatchObject({ code: "unknown_provider_config" });
  });

  test("an unknown integration in the batch fails it with that notification's error", async () => {
    const err = await client
      .matchNotifications({
        requests: [
          { providerConfigKey: "cal", resourceUri: uri("a%40example.com") },
          { providerConfigKey: "nope", resourceUri: uri("a%40example.com") },
        ],
      })
      .catch((e: unknown) => fromConnectError(e));
    expect(err).toMatchObject({ code: "unknown_provider_config" });
  });
});
