import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { MemoryBus } from "@junction/bus";
import type { ChannelStore } from "@junction/channel-service";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type {
  ReceiveNotificationRequestSchema,
  ReceiveNotificationResponse,
  WebhookService,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import {
  Encryptor,
  fromItemError,
  loadCommonConfig,
  ManualClock,
  memoryLogger,
  openDatabase,
} from "@junction/platform";
import { channelSpec, connectionSpec, webhookSpec } from "@junction/service-specs";
import { InMemoryWiring, partsOf } from "@junction/wiring";
import type { DeliveryConfig } from "../src/config.ts";
import type { NotificationAdapterOf } from "../src/inbound/integration-lookup.ts";
import type { NotificationSink } from "@junction/wiring";
import type { WebhookRuntime } from "../src/runtime.ts";
import type { SqliteWebhookStore } from "../src/store/sqlite-store.ts";

type ReceiveRequest = MessageInitShape<typeof ReceiveNotificationRequestSchema>;

/** A webhook service with its workers, on the real connection and channel services, for unit tests. */
export interface WebhookKit {
  client: Client<typeof WebhookService>;
  /** ReceiveNotifications with one notification: its answer, or its error thrown (as the gateway does). */
  receive(req: ReceiveRequest): Promise<ReceiveNotificationResponse>;
  connections: Client<typeof ConnectionService>;
  runtime: WebhookRuntime;
  store: SqliteWebhookStore;
  /** The channel registry's store (to record channels as the proxy would). */
  channelStore: ChannelStore;
  bus: MemoryBus;
  /** The one SQLite database of the kit's services and bus (to measure what they write). */
  db: ReturnType<typeof openDatabase>;
  clock: ManualClock;
  logs: string[];
  environmentId: string;
  /** While true, every call to the channel service fails as if it were down. */
  channelDown: boolean;
  /** Every call made to the channel service: its method name and request. */
  channelCalls: { method: string; message: unknown }[];
  close(): Promise<void>;
}

/**
 * Starts the webhook service over one SQLite file with the real connection and channel services, as
 * the service table builds them (InMemoryWiring), on a manual clock. The channel service can be "taken
 * down" to exercise what happens when it is unreachable.
 */
export async function startWebhookKit(
  options: {
    env?: Record<string, string>;
    sinks?: NotificationSink[];
    delivery?: Partial<DeliveryConfig>;
    /** Reads notifications instead of the providers' adapters (a test reader). */
    notificationAdapterOf?: NotificationAdapterOf;
  } = {},
): Promise<WebhookKit> {
  const dir = mkdtempSync(join(tmpdir(), "junction-webhook-kit-"));
  const common = loadCommonConfig({ JUNCTION_DATA_DIR: dir });
  const db = openDatabase(join(dir, "junction.sqlite"));
  const clock = new ManualClock();
  const logger = memoryLogger();
  const bus = new MemoryBus(db, { clock, logger });
  const kit = { channelDown: false, channelCalls: [] as WebhookKit["channelCalls"] } as WebhookKit;
  const wiring = new InMemoryWiring({
    common,
    clock,
    logger,
    services: ["connection", "channel", "webhook"],
    bus,
    db,
    encryptor: new Encryptor(randomBytes(32)),
    baseUrl: () => "https://junction.example.test",
  });
  await wiring.build(connectionSpec);
  const channel = await wiring.build(channelSpec, {
    interceptors: [
      (next) => async (req) => {
        kit.channelCalls.push({ method: req.method.name, message: req.message });
        if (kit.channelDown) throw new ConnectError("channel service unreachable", Code.Unavailable);
        return next(req);
      },
    ],
  });
  const config = webhookSpec.config({
    JUNCTION_WEBHOOK_RETRY_JITTER: "0",
    // Fresh lookups: the tests change integrations between receipt and processing.
    JUNCTION_WEBHOOK_INTEGRATION_CACHE: "0",
    ...options.env,
  });
  const webhook = await wiring.build(webhookSpec, {
    config: {
      allowPrivateEndpoints: true,
      // The fake upstreams (a push's JWKS among them) listen on 127.0.0.1.
      allowedPrivateHosts: ["127.0.0.1"],
      delivery: { ...config.delivery, ...options.delivery },
      intake: config.intake,
    },
    extras: { sinks: options.sinks, notificationAdapterOf: options.notificationAdapterOf },
  });
  const { connection: connections, webhook: client } = wiring.clients;
  const environmentId = (await connections.getEnvironment({})).environment?.id ?? "";
  const { runtime } = partsOf(webhook);
  await wiring.start();
  return Object.assign(kit, {
    client,
    async receive(req: ReceiveRequest) {
      const [result] = (await client.receiveNotifications({ requests: [req] })).results;
      if (result?.outcome.case === "error") throw fromItemError(result.outcome.value);
      if (result?.outcome.case !== "response") throw new Error("ReceiveNotifications answered without an outcome");
      return result.outcome.value;
    },
    connections,
    runtime,
    // The kit's store is SQLite (its common config names no other).
    store: partsOf(webhook).store as SqliteWebhookStore,
    channelStore: partsOf(channel).store,
    bus,
    db,
    clock,
    logs: logger.lines,
    environmentId,
    async close() {
      await wiring.stop();
      await bus.close();
      await wiring.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
