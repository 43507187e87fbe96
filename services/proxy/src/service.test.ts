import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { type Client, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { MemoryBus, subjects } from "@junction/bus";
import { createConnectionService, openConnectionStore, ProviderCatalog } from "@junction/connection-service";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ChannelCall, type ChannelObserved, ChannelObservedSchema } from "@junction/contracts/events/v1/events_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import {
  type CommonConfig,
  Encryptor,
  ERROR_CODE_HEADER,
  errorBoundary,
  ManualClock,
  memoryLogger,
  openDatabase,
} from "@junction/platform";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { loadProxyConfig } from "./config.ts";
import { EXPIRY_MARGIN_MS } from "./resolve-upstream.ts";
import { createProxyService } from "./service.ts";

let clock: ManualClock;
let bus: MemoryBus;
let proxy: Client<typeof ProxyService>;
let connections: Client<typeof ConnectionService>;
let published: ChannelObserved[];
let closeStore: () => Promise<void>;

beforeEach(async () => {
  clock = new ManualClock();
  const logger = memoryLogger();
  bus = new MemoryBus(undefined, { clock, logger });
  const store = await openConnectionStore({ store: "sqlite" } as CommonConfig, openDatabase(":memory:"));
  closeStore = () => store.close();
  const interceptors = [errorBoundary(logger)];
  const connectionImpl = createConnectionService({
    store,
    encryptor: new Encryptor(randomBytes(32)),
    clock,
    logger,
    bus,
    providers: new ProviderCatalog(),
    baseUrl: "https://junction.test",
    // The operator lets integrations point at the local upstream (JUNCTION_ALLOWED_PRIVATE_HOSTS).
    settings: { allowedPrivateHosts: ["127.0.0.1"] },
  });
  connections = createClient(
    ConnectionService,
    createRouterTransport((r) => r.service(ConnectionService, connectionImpl), { router: { interceptors } }),
  );
  const config = loadProxyConfig({ JUNCTION_PROXY_RESOLVE_CACHE_MS: "4000" });
  // The local upstream allowed as the connection service allows it; names resolve to a public address.
  const addressPolicy = new OutboundAddressPolicy({
    allowedHosts: ["127.0.0.1"],
    lookup: async () => ["142.250.74.42"],
  });
  const impl = createProxyService({ connections, bus, clock, logger, config, addressPolicy });
  proxy = createClient(
    ProxyService,
    createRouterTransport((r) => r.service(ProxyService, impl), { router: { interceptors } }),
  );
  published = [];
  await bus.subscribe(subjects.channelObserved(), (m) => {
    published.push(fromBinary(ChannelObservedSchema, m.data));
  });
  await connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
  await connections.createIntegration({
    uniqueKey: "mail",
    provider: "google-mail",
    overrides: { baseUrl: "http://127.0.0.1:4010" },
  });
});
afterEach(async () => {
  await bus.close();
  await closeStore();
});

const connect = (key: string, id: string, expiresAtMs: bigint) =>
  connections.createConnection({
    providerConfigKey: key,
    connectionId: id,
    credentials: { type: "OAUTH2", accessToken: `access-${id}`, refreshToken: "", expiresAtMs },
  });

async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (err) {
    return ConnectError.from(err).metadata.get(ERROR_CODE_HEADER) ?? undefined;
  }
  return "resolved";
}

describe("ResolveUpstream", () => {
  test("answers the base URL, the token to inject, its reuse and whether channels are observed", async () => {
    await connect("cal", "alice", BigInt(clock.now() + 3_600_000));
    const res = await proxy.resolveUpstream({ providerConfigKey: "cal", connectionId: "alice" });
    expect(res.baseUrl).toBe("https://www.googleapis.com");
    expect(res.headers).toEqual({ authorization: "Bearer access-alice" });
    expect(Number(res.cacheUntilMs) - clock.now()).toBe(4_000);
    expect(res.observeChannelCalls).toBe(true);
    expect(res.allowedOverrideHosts).toContain("www.googleapis.com");
    expect(res.provider).toBe("google-calendar");
  });

  test("the operator's base URL override wins; mail has no channels", async () => {
    await connect("mail", "bob", 0n);
    const res = await proxy.resolveUpstream({ providerConfigKey: "mail", connectionId: "bob" });
    expect(res.baseUrl).toBe("http://127.0.0.1:4010");
    expect(res.observeChannelCalls).toBe(false);
  });

  test("an answer may be reused a few seconds, and never into the token's expiry margin", async () => {
    await connect("cal", "long", BigInt(clock.now() + 3_600_000));
    await connect("cal", "short", BigInt(clock.now() + EXPIRY_MARGIN_MS + 2_000));
    await connect("cal", "unknown", 0n);
    const until = async (id: string) =>
      Number((await proxy.resolveUpstream({ providerConfigKey: "cal", connectionId: id })).cacheUntilMs) - clock.now();
    expect(await until("long")).toBe(4_000);
    expect(await until("short")).toBe(2_000);
    expect(await until("unknown")).toBe(4_000);
  });

  test("keeps the connection service's stable codes across the hop", async () => {
    expect(await codeOf(proxy.resolveUpstream({ providerConfigKey: "nope", connectionId: "x" }))).toBe(
      "unknown_provider_config",
    );
    expect(await codeOf(proxy.resolveUpstream({ providerConfigKey: "cal", connectionId: "nobody" }))).toBe(
      "unknown_connection",
    );
    await connections.createConnection({ providerConfigKey: "cal", connectionId: "empty" });
    expect(await codeOf(proxy.resolveUpstream({ providerConfigKey: "cal", connectionId: "empty" }))).toBe(
      "connection_has_no_credentials",
    );
  });
});

describe("ReportChannelCall", () => {
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const waitPublished = async (n: number) => {
    for (let i = 0; i < 100 && published.length < n; i++) await new Promise((r) => setImmediate(r));
    return published;
  };

  test("a watch publishes ChannelObserved with the channel from both bodies", async () => {
    const res = await proxy.reportChannelCall({
      call: ChannelCall.WATCH,
      environmentId: "env_1",
      providerConfigKey: "cal",
      connectionId: "alice",
      status: 200,
      requestBody: enc({ id: "ch-1", type: "web_hook", address: "https://j.test/webhook", token: "tok" }),
      responseBody: enc({
        kind: "api#channel",
        id: "ch-1",
        resourceId: "res-1",
        resourceUri: "https://www.googleapis.com/calendar/v3/calendars/a%40b.c/events?alt=json",
        expiration: "1800000000000",
      }),
    });
    expect(res.published).toBe(true);
    const [event] = await waitPublished(1);
    expect(event).toMatchObject({
      call: ChannelCall.WATCH,
      environmentId: "env_1",
      providerConfigKey: "cal",
      connectionId: "alice",
      channelId: "ch-1",
      resourceId: "res-1",
      resourceUri: "https://www.googleapis.com/calendar/v3/calendars/a%40b.c/events?alt=json",
      expirationMs: 1_800_000_000_000n,
      token: "tok",
      status: 200,
      atMs: BigInt(clock.now()),
    });
  });

  test("a stop publishes the pair from the request body, whatever the status", async () => {
    await proxy.reportChannelCall({
      call: ChannelCall.STOP,
      environmentId: "env_1",
      providerConfigKey: "cal",
      connectionId: "alice",
      status: 404,
      requestBody: enc({ id: "ch-1", resourceId: "res-1" }),
      responseBody: enc({ error: { code: 404 } }),
    });
    const [event] = await waitPublished(1);
    expect(event).toMatchObject({ call: ChannelCall.STOP, channelId: "ch-1", resourceId: "res-1", status: 404 });
  });

  test("a report naming its provider is read by that provider's adapter only, with the call's path", async () => {
    // Graph's answer has an `id`, which another provider's reader would take for a channel of its own.
    await proxy.reportChannelCall({
      call: ChannelCall.WATCH,
      environmentId: "env_1",
      providerConfigKey: "outlook",
      connectionId: "alice",
      provider: "microsoft-outlook-calendar",
      path: "/v1.0/subscriptions",
      status: 201,
      requestBody: enc({ resource: "me/events", clientState: "secret" }),
      responseBody: enc({ id: "sub-1", resource: "me/events", expirationDateTime: "2027-01-01T00:00:00Z" }),
    });
    await proxy.reportChannelCall({
      call: ChannelCall.STOP,
      environmentId: "env_1",
      providerConfigKey: "outlook",
      connectionId: "alice",
      provider: "microsoft-outlook-calendar",
      path: "/v1.0/subscriptions/sub-1",
      status: 204,
    });
    const [watch, stop] = await waitPublished(2);
    expect(watch).toMatchObject({ channelId: "sub-1", resourceUri: "me/events", token: "secret" });
    expect(stop).toMatchObject({ call: ChannelCall.STOP, channelId: "sub-1" });
  });

  test("a renewal publishes RENEW with the id from the path and the new expiration from Graph's answer", async () => {
    const outlook = { environmentId: "env_1", providerConfigKey: "outlook", provider: "microsoft-outlook-calendar" };
    const res = await proxy.reportChannelCall({
      ...outlook,
      call: ChannelCall.RENEW,
      connectionId: "alice",
      path: "/v1.0/subscriptions/sub-1",
      status: 200,
      requestBody: enc({ expirationDateTime: "2027-01-03T00:00:00Z" }),
      responseBody: enc({ id: "sub-1", resource: "me/events", expirationDateTime: "2027-01-04T00:00:00Z" }),
    });
    expect(res.published).toBe(true);
    const [event] = await waitPublished(1);
    expect(event).toMatchObject({
      call: ChannelCall.RENEW,
      connectionId: "alice",
      channelId: "sub-1",
      expirationMs: BigInt(Date.parse("2027-01-04T00:00:00Z")),
      status: 200,
    });
  });

  test("bodies that name no channel publish nothing; a call of no kind is refused", async () => {
    const res = await proxy.reportChannelCall({
      call: ChannelCall.WATCH,
      environmentId: "env_1",
      providerConfigKey: "cal",
      status: 200,
      requestBody: new TextEncoder().encode("not json"),
    });
    expect(res.published).toBe(false);
    expect(await codeOf(proxy.reportChannelCall({ environmentId: "env_1", providerConfigKey: "cal" }))).toBe(
      "invalid_channel_call",
    );
    expect(published).toEqual([]);
  });
});

describe("proxy config", () => {
  test("fails fast naming the variable", () => {
    expect(() => loadProxyConfig({ JUNCTION_PROXY_RESOLVE_CACHE_MS: "soon" })).toThrow(
      "JUNCTION_PROXY_RESOLVE_CACHE_MS",
    );
  });
});
