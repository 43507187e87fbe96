import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { MemoryBus } from "@junction/bus";
import { type ChannelStore, createChannelService, openChannelStore } from "@junction/channel-service";
import { createConnectionService, openConnectionStore, ProviderCatalog } from "@junction/connection-service";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import {
  type ReceiveNotificationRequestSchema,
  type ReceiveNotificationResponse,
  WebhookService,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import {
  Encryptor,
  errorBoundary,
  fromItemError,
  loadCommonConfig,
  ManualClock,
  memoryLogger,
  openDatabase,
} from "@junction/platform";
import { type DeliveryConfig, loadDeliveryConfig } from "../config.ts";
import type { NotificationAdapterOf } from "../inbound/integration-lookup.ts";
import type { NotificationSink } from "../inbound/notification-sink.ts";
import { createWebhookRuntime, type WebhookRuntime } from "../runtime.ts";
import { SqliteWebhookStore } from "../store/sqlite-store.ts";

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
 * Starts the webhook runtime over one in-memory SQLite file with the real connection and channel
 * services behind in-memory transports, on a manual clock. The channel service can be "taken
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
  const encryptor = new Encryptor(randomBytes(32));
  const bus = new MemoryBus(db, { clock, logger });
  const interceptors = [errorBoundary(logger)];

  const connectionStore = await openConnectionStore(common, db);
  const connectionImpl = createConnectionService({
    store: connectionStore,
    encryptor,
    clock,
    logger,
    bus,
    providers: new ProviderCatalog(),
    baseUrl: "https://junction.example.test",
  });
  const connections = createClient(
    ConnectionService,
    createRouterTransport((r) => r.service(ConnectionService, connectionImpl), { router: { interceptors } }),
  );
  const environmentId = (await connections.getEnvironment({})).environment?.id ?? "";
  const environment = async () => environmentId;

  const channelStore = await openChannelStore(common, db);
  const kit = { channelDown: false, channelCalls: [] as WebhookKit["channelCalls"] } as WebhookKit;
  const channelImpl = createChannelService({ store: channelStore, clock, logger, environment });
  const channels = createClient(
    ChannelService,
    createRouterTransport((r) => r.service(ChannelService, channelImpl), {
      router: {
        interceptors: [
          (next) => async (req) => {
            kit.channelCalls.push({ method: req.method.name, message: req.message });
            if (kit.channelDown) throw new ConnectError("channel service unreachable", Code.Unavailable);
            return next(req);
          },
          ...interceptors,
        ],
      },
    }),
  );

  const store = new SqliteWebhookStore(db);
  const runtime = createWebhookRuntime({
    store,
    encryptor,
    clock,
    logger,
    allowPrivateEndpoints: true,
    environment,
    bus,
    connections,
    channels,
    delivery: {
      ...loadDeliveryConfig({
        JUNCTION_WEBHOOK_RETRY_JITTER: "0",
        // Fresh lookups: the tests change integrations between receipt and processing.
        JUNCTION_WEBHOOK_INTEGRATION_CACHE: "0",
        ...options.env,
      }),
      ...options.delivery,
    },
    sinks: options.sinks,
    notificationAdapterOf: options.notificationAdapterOf,
  });
  const client = createClient(
    WebhookService,
    createRouterTransport((r) => r.service(WebhookService, runtime.service), { router: { interceptors } }),
  );
  await runtime.start();
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
    store,
    channelStore,
    bus,
    clock,
    logs: logger.lines,
    environmentId,
    async close() {
      await runtime.stop();
      await bus.close();
      await Promise.all([connectionStore.close(), channelStore.close()]);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
