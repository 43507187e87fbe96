import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { type BusMessage, MemoryBus, queues, subjects } from "@junction/bus";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import {
  ConnectionCreatedSchema,
  type DeliveryRequested,
  DeliveryRequestedSchema,
} from "@junction/contracts/events/v1/events_pb";
import { Encryptor, loadCommonConfig, ManualClock, memoryLogger, openDatabase } from "@junction/platform";
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from "@junction/sandbox-upstream";
import { connectionSpec } from "@junction/service-specs";
import { InMemoryWiring, partsOf } from "@junction/wiring";
import type { ProviderCatalog } from "../src/providers/catalog.ts";
import type { SqliteConnectionStore } from "../src/store/sqlite-store.ts";
import type { OAuthSettings } from "../src/oauth/oauth-settings.ts";
import type { ConnectionSettings } from "../src/connection-settings.ts";

// Shared by the OAuth tests of this service: the connection service as the service table builds it
// (InMemoryWiring), on a SQLite file and a MemoryBus,
// the fake upstream on the same manual clock, and the calls the gateway would make.

export const CLIENT = { clientId: "junction-test.apps.fake", clientSecret: "fake-client-secret" };
export const CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar";
export const BASE_URL = "http://junction.test";
export const KEY = Buffer.alloc(32, 7).toString("base64");

export interface Harness {
  clock: ManualClock;
  fake: FakeUpstream;
  client: Client<typeof ConnectionService>;
  store: SqliteConnectionStore;
  path: string;
  logLines: string[];
  /** Auth webhooks enqueued on the delivery queue, decoded. */
  deliveries: DeliveryRequested[];
  /** post-connection-creation / re-authorized events, as "created:<id>" / "reauthorized:<id>". */
  events: string[];
  waitForDeliveries(n: number): Promise<DeliveryRequested[]>;
  /** Creates a calendar integration pointed at the fake. */
  integration(key?: string, over?: { scopes?: string[]; provider?: string }): Promise<void>;
  /** Connect session → authorization URL → the fake's consent → callback; returns the callback answer. */
  connect(options?: {
    key?: string;
    endUserId?: string;
    reconnect?: string;
  }): ReturnType<Client<typeof ConnectionService>["completeAuthorization"]>;
  /** Starts authorization and returns the fake's redirect back to the callback (not yet completed). */
  authorizeOnly(options?: { key?: string; endUserId?: string; reconnect?: string }): Promise<URL>;
  complete(callback: URL): ReturnType<Client<typeof ConnectionService>["completeAuthorization"]>;
}

/** Creates integration `uniqueKey` of `provider` with the fake's OAuth client; `over` adds or replaces fields. */
export function createIntegrationOf(
  h: Harness,
  uniqueKey: string,
  provider: string,
  over: Record<string, unknown> = {},
) {
  return h.client.createIntegration({
    uniqueKey,
    provider,
    clientId: CLIENT.clientId,
    clientSecret: CLIENT.clientSecret,
    ...over,
  });
}

/** Registers cleanup after each test; call `start()` inside tests. */
export function useOAuthHarness() {
  const running: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });
  return {
    async start(
      options: {
        fake?: FakeUpstreamOptions;
        oauth?: Partial<OAuthSettings>;
        settings?: Partial<ConnectionSettings>;
        path?: string;
        providers?: ProviderCatalog;
      } = {},
    ): Promise<Harness> {
      const clock = new ManualClock();
      const fake = await startFakeUpstream({ clients: [CLIENT], now: () => clock.now(), ...options.fake });
      const dir = options.path ? undefined : mkdtempSync(join(tmpdir(), "junction-oauth-"));
      const path = options.path ?? join(dir as string, "connection.sqlite");
      const bus = new MemoryBus(undefined, { clock });
      const logger = memoryLogger();
      const wiring = new InMemoryWiring({
        common: loadCommonConfig({}),
        clock,
        logger,
        services: ["connection"],
        bus,
        db: openDatabase(path),
        encryptor: Encryptor.fromBase64(KEY),
        baseUrl: () => BASE_URL,
      });
      const defaults = connectionSpec.config({});
      const connection = await wiring.build(connectionSpec, {
        config: {
          ...defaults,
          oauth: { ...defaults.oauth, tokenRequestTimeoutMs: 2000, ...options.oauth },
          // The fake upstream listens on 127.0.0.1: the operator's allow-list lets integrations point at it.
          settings: { ...defaults.settings, allowedPrivateHosts: ["127.0.0.1"], ...options.settings },
          ...(options.providers ? { providers: options.providers } : {}),
        },
      });
      // The kit's store is SQLite (a file at `path`).
      const store = partsOf(connection).store as SqliteConnectionStore;
      const client = wiring.clients.connection;
      const deliveries: DeliveryRequested[] = [];
      const events: string[] = [];
      const waiters = new Set<() => void>();
      await bus.consume(queues.webhookDelivery, async (job) => {
        deliveries.push(fromBinary(DeliveryRequestedSchema, job.data));
        await job.ack();
        for (const w of waiters) w();
      });
      const record = (kind: string) => (msg: BusMessage) => {
        // ConnectionReauthorized has the same fields as ConnectionCreated.
        events.push(`${kind}:${fromBinary(ConnectionCreatedSchema, msg.data).connectionId}`);
      };
      await bus.subscribe(subjects.connectionCreated(), record("created"));
      await bus.subscribe(subjects.connectionReauthorized(), record("reauthorized"));
      running.push(async () => {
        await fake.stop();
        await wiring.stop();
        await bus.close();
        await wiring.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      const authorizeOnly: Harness["authorizeOnly"] = async (o = {}) => {
        const key = o.key ?? "cal";
        const { token } = await client.createConnectSession({
          endUser: { id: o.endUserId ?? "user-1", email: "alice@example.com" } as JsonObject,
          allowedIntegrations: o.reconnect ? [] : [key],
          reconnectConnectionId: o.reconnect ?? "",
          reconnectProviderConfigKey: o.reconnect ? key : "",
        });
        const { authorizationUrl } = await client.startAuthorization({
          providerConfigKey: key,
          connectSessionToken: token,
        });
        return fake.authorize(authorizationUrl);
      };
      const complete: Harness["complete"] = (callback) =>
        client.completeAuthorization({
          state: callback.searchParams.get("state") ?? "",
          code: callback.searchParams.get("code") ?? "",
          error: callback.searchParams.get("error") ?? "",
          errorDescription: callback.searchParams.get("error_description") ?? "",
        });
      return {
        clock,
        fake,
        client,
        store,
        path,
        logLines: logger.lines,
        deliveries,
        events,
        async waitForDeliveries(n) {
          const deadline = Date.now() + 5000;
          while (deliveries.length < n) {
            if (Date.now() > deadline) throw new Error(`wanted ${n} deliveries, got ${deliveries.length}`);
            await new Promise<void>((resolve) => {
              waiters.add(resolve);
              setTimeout(resolve, 50);
            });
          }
          return deliveries;
        },
        async integration(key = "cal", over = {}) {
          await client.createIntegration({
            uniqueKey: key,
            provider: over.provider ?? "google-calendar",
            clientId: CLIENT.clientId,
            clientSecret: CLIENT.clientSecret,
            scopes: over.scopes ?? ["openid", "email", CALENDAR_SCOPE],
            overrides: {
              baseUrl: fake.url,
              authorizationUrl: fake.endpoints.authorizationUrl,
              tokenUrl: fake.endpoints.tokenUrl,
            },
          });
        },
        authorizeOnly,
        complete,
        async connect(o = {}) {
          return complete(await authorizeOnly(o));
        },
      };
    },
  };
}

/** The JSON body of an auth webhook job. */
export function bodyOf(job: DeliveryRequested): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(job.body)) as Record<string, unknown>;
}
