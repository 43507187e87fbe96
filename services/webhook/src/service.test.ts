import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import {
  GetSettingsResponseSchema,
  RotateSigningSecretResponseSchema,
  WebhookService,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import {
  createLogger,
  Encryptor,
  ERROR_CODE_HEADER,
  errorBoundary,
  fromConnectError,
  type JunctionError,
  ManualClock,
  openDatabase,
  parseId,
} from "@junction/platform";
import { MemoryBus } from "@junction/bus";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { DEFAULT_DELIVERY_CONFIG, DEFAULT_INTAKE_CONFIG } from "./config.ts";
import { IntakeLimits } from "./intake/intake-limits.ts";
import { batchedLookups } from "./inbound/notification-lookups.ts";
import { IntegrationCache } from "./inbound/integration-cache.ts";
import { createWebhookService } from "./service.ts";
import { currentSigningSecrets } from "./settings.ts";
import { SettingsCache } from "./settings-cache.ts";
import { signatureHeaders, verifyStandard } from "./signing.ts";
import { SqliteWebhookStore } from "./store/sqlite-store.ts";
import type { WebhookServiceStore } from "./store/store.ts";
import { webhookMetrics } from "./webhook-metrics.ts";

const ENV = "env_webhooktest";
const HOUR = 60 * 60 * 1000;

const root = mkdtempSync(join(tmpdir(), "junction-webhook-service-"));
let files = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

/** A WebhookService over a fresh SQLite file, reached through an in-memory Connect transport. */
function setup(options: { allowPrivateEndpoints?: boolean; store?: (db: Database) => WebhookServiceStore } = {}) {
  const db = openDatabase(join(root, `service-${++files}`, "webhook.sqlite"));
  const sqlite = new SqliteWebhookStore(db);
  const store = options.store?.(db) ?? sqlite;
  const encryptor = new Encryptor(randomBytes(32));
  const clock = new ManualClock();
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  // The settings RPCs use neither the bus nor the other services: an empty transport stands in.
  const none = createRouterTransport(() => {});
  const impl = createWebhookService({
    store,
    encryptor,
    clock,
    logger,
    allowPrivateEndpoints: options.allowPrivateEndpoints ?? false,
    environment: async () => ENV,
    bus: new MemoryBus(undefined, { clock }),
    connections: createClient(ConnectionService, none),
    channels: createClient(ChannelService, none),
    delivery: DEFAULT_DELIVERY_CONFIG,
    deliveries: { schedule: () => {}, scheduleClaimed: () => {} },
    integrations: new IntegrationCache(createClient(ConnectionService, none), 0),
    lookups: batchedLookups(createClient(ConnectionService, none), createClient(ChannelService, none)),
    counts: webhookMetrics(undefined, store, () => clock.now()),
    limits: new IntakeLimits(DEFAULT_INTAKE_CONFIG, store, logger, () => clock.now()),
    settings: new SettingsCache(store, encryptor, clock),
    readerFetch: (input, init) => fetch(input, init),
    send: async () => ({ statusCode: 200, latencyMs: 1, responseSnippet: "", error: null, retryAfterMs: null }),
  });
  const transport = createRouterTransport((router) => router.service(WebhookService, impl), {
    router: { interceptors: [errorBoundary(logger)] },
  });
  opened.push(() => sqlite.close());
  const secrets = () => currentSigningSecrets(store, encryptor, ENV, clock.now());
  return { client: createClient(WebhookService, transport), store, db, encryptor, clock, logs, secrets };
}

/** The domain error a call failed with, as a Connect client sees it. */
async function failure(call: Promise<unknown>): Promise<{ error: JunctionError; header: string | null }> {
  try {
    await call;
  } catch (err) {
    return { error: fromConnectError(err), header: ConnectError.from(err).metadata.get(ERROR_CODE_HEADER) };
  }
  throw new Error("expected the call to fail");
}

describe("WebhookService settings", () => {
  test("creates the settings with a signing secret the first time they are read", async () => {
    const { client, store } = setup();
    expect(await store.getSettings(ENV)).toBeNull();

    const { settings } = await client.getSettings({});
    expect(settings?.endpoints).toEqual([]);
    expect(settings?.signingSecretPrefix).toMatch(/^whsec_[A-Za-z0-9+/]{4}$/);
    expect(settings?.previousSecretValidUntilMs).toBe(0n);
    expect((await store.getSettings(ENV))?.version).toBe(1);

    const again = await client.getSettings({});
    expect(again.settings?.signingSecretPrefix).toBe(settings?.signingSecretPrefix as string);
    expect((await store.getSettings(ENV))?.version).toBe(1);
  });

  test("creates the signing secret on a first write too", async () => {
    const { client, secrets } = setup();
    const { settings } = await client.updateSettings({ endpointUrls: ["https://hooks.example.com/in"] });
    const [current] = await secrets();
    expect(settings?.signingSecretPrefix).toBe((current as string).slice(0, 10));
  });

  test("concurrent first reads agree on one secret", async () => {
    const { client, secrets } = setup();
    const responses = await Promise.all(Array.from({ length: 6 }, () => client.getSettings({})));
    const prefixes = new Set(responses.map((r) => r.settings?.signingSecretPrefix));
    expect(prefixes.size).toBe(1);
    expect(await secrets()).toHaveLength(1);
  });

  test("never returns a secret, only the current one's prefix", async () => {
    const { client, secrets } = setup();
    const first = await client.getSettings({});
    const [original] = (await secrets()) as [string];
    expect(toJsonString(GetSettingsResponseSchema, first)).not.toContain(original.slice(6));
    expect(first.settings?.signingSecretPrefix).toBe(original.slice(0, 10));

    const rotated = await client.rotateSigningSecret({ graceMs: BigInt(HOUR) });
    const json = toJsonString(RotateSigningSecretResponseSchema, rotated);
    expect(json).not.toContain(original.slice(6));
    expect(json.split(rotated.signingSecret.slice(6)).length - 1).toBe(1); // only in signing_secret

    const after = toJsonString(GetSettingsResponseSchema, await client.getSettings({}));
    expect(after).not.toContain(original.slice(6));
    expect(after).not.toContain(rotated.signingSecret.slice(6));
  });

  test("stores the signing secrets encrypted", async () => {
    const { client, db, secrets } = setup();
    await client.getSettings({});
    const [original] = (await secrets()) as [string];
    const { signingSecret } = await client.rotateSigningSecret({ graceMs: BigInt(HOUR) });

    const row = db
      .query<Record<string, unknown>, [string]>("SELECT * FROM webhook_settings WHERE environment_id = ?")
      .get(ENV) as Record<string, unknown>;
    expect(String(row.signing_secret_enc)).toStartWith("enc:v2:");
    expect(String(row.previous_signing_secret_enc)).toStartWith("enc:v2:");
    const raw = JSON.stringify(row);
    for (const secret of [original, signingSecret]) {
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(secret.slice(6));
    }
  });
});

describe("WebhookService endpoints", () => {
  test("stores endpoints in request order, normalised, without duplicates, with ep_ ids", async () => {
    const { client } = setup();
    const { settings } = await client.updateSettings({
      endpointUrls: [
        "https://b.example.com/hooks",
        "https://a.example.com/in?x=1",
        "https://b.example.com/hooks",
        "HTTPS://B.EXAMPLE.COM:443/hooks#top",
      ],
    });
    expect(settings?.endpoints.map((e) => [e.url, e.enabled])).toEqual([
      ["https://b.example.com/hooks", true],
      ["https://a.example.com/in?x=1", true],
    ]);
    for (const e of settings?.endpoints ?? []) expect(parseId("ep", e.id)).toBe(e.id);
    expect((await client.getSettings({})).settings?.endpoints).toEqual(settings?.endpoints ?? []);
  });

  test("keeps the id of an endpoint whose URL stays and drops the removed ones", async () => {
    const { client } = setup();
    const first = await client.updateSettings({ endpointUrls: ["https://a.example.com/", "https://b.example.com/"] });
    const [a] = first.settings?.endpoints ?? [];
    const second = await client.updateSettings({ endpointUrls: ["https://c.example.com/", "https://a.example.com/"] });
    expect(second.settings?.endpoints.map((e) => e.url)).toEqual(["https://c.example.com/", "https://a.example.com/"]);
    expect(second.settings?.endpoints[1]?.id).toBe(a?.id as string);
    expect(second.settings?.endpoints[0]?.id).not.toBe(first.settings?.endpoints[1]?.id as string);

    const cleared = await client.updateSettings({ endpointUrls: [] });
    expect(cleared.settings?.endpoints).toEqual([]);
  });

  test.each([
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://10.0.0.5/hook",
    "https://172.16.3.4/hook",
    "https://192.168.1.10/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/hook",
    "https://[fd00::1]/hook",
    "https://[fe80::1]/hook",
    "https://0.0.0.0/hook",
    "http://127.0.0.1:8080/hook",
  ])("refuses the private or loopback endpoint %s", async (url) => {
    const { client, store } = setup();
    const { error, header } = await failure(client.updateSettings({ endpointUrls: ["https://ok.example.com/", url] }));
    expect(error.status).toBe(Code.InvalidArgument);
    // The outbound address policy's one refusal code, wherever a URL enters.
    expect(error.code).toBe("private_address_not_allowed");
    expect(header).toBe("private_address_not_allowed");
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]?.path).toBe("endpoint_urls[1]");
    expect(error.errors[0]?.message).toContain(`"${url}"`);
    expect(await store.getSettings(ENV)).toBeNull();
  });

  test("names every refused URL and why, and changes nothing", async () => {
    const { client } = setup();
    const before = await client.updateSettings({ endpointUrls: ["https://keep.example.com/"] });
    const { error } = await failure(
      client.updateSettings({
        endpointUrls: [
          "https://fine.example.com/",
          "not a url",
          "http://plain.example.com/",
          "ftp://files.example.com/",
        ],
      }),
    );
    expect(error.code).toBe("invalid_endpoint_url");
    expect(error.errors).toEqual([
      { path: "endpoint_urls[1]", message: '"not a url" is not an absolute URL' },
      { path: "endpoint_urls[2]", message: '"http://plain.example.com/" must use https' },
      { path: "endpoint_urls[3]", message: '"ftp://files.example.com/" must use https' },
    ]);
    expect(error.message).toContain('"not a url"');
    expect((await client.getSettings({})).settings?.endpoints).toEqual(before.settings?.endpoints ?? []);
  });

  test("allows private and http-loopback endpoints when the operator allows them", async () => {
    const { client } = setup({ allowPrivateEndpoints: true });
    const urls = ["http://127.0.0.1:8080/hook", "http://localhost:3000/x", "https://10.0.0.5/hook", "http://[::1]:9/x"];
    const { settings } = await client.updateSettings({ endpointUrls: urls });
    expect(settings?.endpoints.map((e) => e.url)).toEqual(urls);

    const { error } = await failure(client.updateSettings({ endpointUrls: ["http://10.0.0.5/hook"] }));
    expect(error.code).toBe("invalid_endpoint_url");
    expect(error.errors[0]?.message).toContain("http is allowed only to loopback");
  });

  test("checks a connection's webhook URL override by the endpoints' rules, naming its field", async () => {
    const strict = setup().client;
    expect(
      (await strict.checkEndpointUrl({ url: "https://Hooks.Example.com/in#x", field: "webhook_url_override" })).url,
    ).toBe("https://hooks.example.com/in");
    for (const url of ["http://hooks.example.com/in", "https://10.0.0.5/hook", "ftp://x.example.com/", "nope"]) {
      const { error } = await failure(strict.checkEndpointUrl({ url, field: "webhook_url_override" }));
      expect(error.status).toBe(Code.InvalidArgument);
      // A private host is the address policy's refusal (its one code); the others are the endpoint rules'.
      expect(error.code).toBe(url.includes("10.0.0.5") ? "private_address_not_allowed" : "invalid_webhook_url");
      expect(error.errors[0]?.path).toBe("webhook_url_override");
    }
    const relaxed = setup({ allowPrivateEndpoints: true }).client;
    expect((await relaxed.checkEndpointUrl({ url: "http://127.0.0.1:9/x" })).url).toBe("http://127.0.0.1:9/x");
    const { error } = await failure(relaxed.checkEndpointUrl({ url: "http://10.0.0.5/hook" }));
    expect(error.errors[0]).toMatchObject({
      path: "url",
      message: expect.stringContaining("http is allowed only to loopback"),
    });
  });

  test("accepts ten distinct endpoints and refuses eleven", async () => {
    const { client } = setup();
    const ten = Array.from({ length: 10 }, (_, i) => `https://h${i}.example.com/`);
    const ok = await client.updateSettings({ endpointUrls: [...ten, ten[0] as string] });
    expect(ok.settings?.endpoints).toHaveLength(10);

    const { error } = await failure(client.updateSettings({ endpointUrls: [...ten, "https://h10.example.com/"] }));
    expect(error.status).toBe(Code.InvalidArgument);
    expect(error.code).toBe("too_many_endpoints");
  });
});

describe("WebhookService signing secret rotation", () => {
  test("returns the new secret once and keeps the previous one signing for the grace period", async () => {
    const { client, clock, secrets } = setup();
    await client.getSettings({});
    const [original] = (await secrets()) as [string];
    const rotatedAt = clock.now();

    const res = await client.rotateSigningSecret({ graceMs: BigInt(HOUR) });
    expect(res.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.signingSecret).not.toBe(original);
    expect(res.settings?.signingSecretPrefix).toBe(res.signingSecret.slice(0, 10));
    expect(res.settings?.previousSecretValidUntilMs).toBe(BigInt(rotatedAt + HOUR));
    expect(await secrets()).toEqual([res.signingSecret, original]);

    // A receiver that still has the old secret verifies messages signed during the grace period.
    const ts = Math.floor(clock.now() / 1000);
    const headers = signatureHeaders(await secrets(), "msg_1", ts, "{}");
    expect(verifyStandard(original, { ...headers }, "{}", 300, ts)).toEqual({ valid: true });
    expect(verifyStandard(res.signingSecret, { ...headers }, "{}", 300, ts)).toEqual({ valid: true });

    await clock.advance(HOUR - 1);
    expect(await secrets()).toEqual([res.signingSecret, original]);
    await clock.advance(1);
    expect(await secrets()).toEqual([res.signingSecret]);
    expect((await client.getSettings({})).settings?.previousSecretValidUntilMs).toBe(0n);
  });

  test("keeps the previous secret for 24 hours when no grace period is given", async () => {
    const { client, clock, store } = setup();
    const res = await client.rotateSigningSecret({});
    expect(res.settings?.previousSecretValidUntilMs).toBe(BigInt(clock.now() + 24 * HOUR));
    expect((await store.getSettings(ENV))?.previousSecretValidUntil).toBe(clock.now() + 24 * HOUR);
  });

  test("forgets an expired previous secret on the next write", async () => {
    const { client, clock, store } = setup();
    await client.rotateSigningSecret({ graceMs: 1000n });
    await clock.advance(1000);
    await client.updateSettings({ endpointUrls: ["https://a.example.com/"] });
    const rec = await store.getSettings(ENV);
    expect(rec?.previousSigningSecretEnc).toBeNull();
    expect(rec?.previousSecretValidUntil).toBeNull();
  });

  test("rotating again within the grace period retires the oldest secret", async () => {
    const { client, secrets } = setup();
    const first = await client.rotateSigningSecret({ graceMs: BigInt(HOUR) });
    const second = await client.rotateSigningSecret({ graceMs: BigInt(HOUR) });
    expect(await secrets()).toEqual([second.signingSecret, first.signingSecret]);
  });

  test("refuses a negative or overlong grace period", async () => {
    const { client, store } = setup();
    for (const graceMs of [-1n, BigInt(31 * 24 * HOUR)]) {
      const { error } = await failure(client.rotateSigningSecret({ graceMs }));
      expect(error.status).toBe(Code.InvalidArgument);
      expect(error.code).toBe("invalid_grace_period");
    }
    expect(await store.getSettings(ENV)).toBeNull();
  });

  test("an endpoint update racing a rotation loses neither", async () => {
    const { client, secrets } = setup();
    await client.getSettings({});
    const [, rotated] = await Promise.all([
      client.updateSettings({ endpointUrls: ["https://a.example.com/"] }),
      client.rotateSigningSecret({ graceMs: BigInt(HOUR) }),
      client.updateSettings({ endpointUrls: ["https://a.example.com/"] }),
    ]);
    expect((await secrets())[0]).toBe(rotated.signingSecret);
    const { settings } = await client.getSettings({});
    expect(settings?.endpoints.map((e) => e.url)).toEqual(["https://a.example.com/"]);
    expect(settings?.signingSecretPrefix).toBe(rotated.signingSecret.slice(0, 10));
  });
});

describe("WebhookService errors", () => {
  test("an unexpected failure becomes Internal; its cause is logged, not sent", async () => {
    const broken = (db: Database): WebhookServiceStore => {
      const real = new SqliteWebhookStore(db);
      return Object.assign(Object.create(real) as WebhookServiceStore, {
        getSettings: async () => {
          throw new Error("disk on fire at /var/lib/junction");
        },
        close: async () => {},
      });
    };
    const { client, logs } = setup({ store: broken });
    const err = ConnectError.from(
      await client.getSettings({}).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err.code).toBe(Code.Internal);
    expect(err.rawMessage).not.toContain("disk on fire");
    expect(logs.some((line) => line.includes("disk on fire"))).toBe(true);
  });
});
