import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { MemoryBus, queues, type Subscription, subjects } from "@junction/bus";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import {
  ConnectionService,
  type Integration,
  IntegrationSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import {
  ConnectionCreatedSchema,
  type DeliveryRequested,
  DeliveryRequestedSchema,
} from "@junction/contracts/events/v1/events_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { errorBoundary, ManualClock, memoryLogger, notFound } from "@junction/platform";
import { createChannelService } from "../src/service.ts";
import { SqliteChannelStore } from "../src/store/sqlite-store.ts";
import type { ChannelStore } from "../src/store/store.ts";
import { createManagedChannels, type ManagedChannels } from "../src/managed/managed-channels.ts";
import { testTokens } from "./test-tokens.ts";
const tokens = testTokens();

// Managed channels' tests: small in-test stand-ins for the three providers' channel calls (never the
// providers' own fakes), the proxy and connection services as in-memory routers, on one manual clock.

export const ENV = "env_managed_test";
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const WEBHOOK_URL = "https://junction.test/webhook/env_managed_test/int";
export const TOPIC = "projects/p/topics/junction";

interface UpstreamChannel {
  id: string;
  connectionId: string;
  token: string;
  expiration: number;
  stopped: boolean;
}

/** The three providers' channel calls, as little as the managed runner needs, on the test's clock. */
export class StandInUpstream {
  readonly channels = new Map<string, UpstreamChannel>();
  readonly calls: string[] = [];
  /** Every channel token or clientState a creation sent, refused or not. */
  readonly sentTokens: string[] = [];
  /** The next N creations are refused with a 503 whose body echoes the token (to prove redaction). */
  failCreates = 0;
  /** The next N stops are refused with a 503. */
  failStops = 0;
  private seq = 0;

  constructor(private readonly clock: ManualClock) {}

  /** Channels the upstream sends on for the connection now (not stopped, not expired). */
  activeFor(connectionId: string): UpstreamChannel[] {
    const now = this.clock.now();
    return [...this.channels.values()].filter(
      (c) => c.connectionId === connectionId && !c.stopped && c.expiration > now,
    );
  }

  readonly fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const method = init?.method ?? "GET";
    const conn = String(((init?.headers ?? {}) as Record<string, string>).authorization).replace("Bearer ", "");
    const raw = typeof init?.body === "string" ? init.body : "";
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const now = this.clock.now();
    this.calls.push(`${method} ${url.pathname} ${conn}`);
    const isCreate =
      url.pathname.endsWith("/events/watch") ||
      url.pathname.endsWith("/watch") ||
      (method === "POST" && url.pathname === "/v1.0/subscriptions");
    if (isCreate && typeof (body.token ?? body.clientState) === "string") {
      this.sentTokens.push(String(body.token ?? body.clientState));
    }
    if (isCreate && this.failCreates > 0) {
      this.failCreates--;
      return new Response(`busy, try later (channel ${String(body.token ?? body.clientState)})`, { status: 503 });
    }
    const json = (status: number, value: unknown) => Response.json(value, { status });
    const stop = (c: UpstreamChannel | undefined) => {
      if (this.failStops > 0) {
        this.failStops--;
        return new Response("busy", { status: 503 });
      }
      if (!c || c.stopped || c.expiration <= now) return new Response(null, { status: 404 });
      c.stopped = true;
      return new Response(null, { status: 204 });
    };
    const path = url.pathname;
    if (method === "GET" && path === "/calendar/v3/users/me/calendarList/primary") {
      return json(200, { id: `${conn}@example.com`, primary: true });
    }
    const calendar = /^\/calendar\/v3\/calendars\/([^/]+)\/events\/watch$/.exec(path)?.[1];
    if (method === "POST" && calendar) {
      if (decodeURIComponent(calendar) !== `${conn}@example.com`) return json(404, { error: "not your calendar" });
      const params = body.params as { ttl: string };
      const channel = this.add(String(body.id), conn, String(body.token), now + Number(params.ttl) * 1000);
      return json(200, {
        id: channel.id,
        resourceId: `res-${conn}`,
        resourceUri: `https://calendar.stand-in/calendar/v3/calendars/${calendar}/events?alt=json`,
        expiration: String(channel.expiration),
      });
    }
    if (method === "POST" && path === "/calendar/v3/channels/stop") return stop(this.channels.get(String(body.id)));
    if (method === "POST" && path === "/gmail/v1/users/me/watch") {
      if (!body.topicName) return json(400, { error: { message: "topicName required" } });
      // One watch per mailbox: watching again replaces it.
      const channel = this.add(`mailbox-${conn}`, conn, "", now + 7 * DAY);
      return json(200, { historyId: String(++this.seq), expiration: String(channel.expiration) });
    }
    if (method === "POST" && path === "/gmail/v1/users/me/stop") return stop(this.channels.get(`mailbox-${conn}`));
    if (method === "POST" && path === "/v1.0/subscriptions") {
      const expiration = Date.parse(String(body.expirationDateTime));
      if (!(expiration <= now + 10_080 * 60_000)) return json(400, { error: { code: "InvalidRequest" } });
      const channel = this.add(`sub-${++this.seq}`, conn, String(body.clientState), expiration);
      return json(201, { id: channel.id, resource: body.resource, expirationDateTime: body.expirationDateTime });
    }
    const sub = /^\/v1\.0\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    if (sub && method === "PATCH") {
      const channel = this.channels.get(sub);
      if (!channel || channel.stopped || channel.expiration <= now) return json(404, { error: { code: "NotFound" } });
      channel.expiration = Date.parse(String(body.expirationDateTime));
      return json(200, { id: sub, resource: "/me/events", expirationDateTime: body.expirationDateTime });
    }
    if (sub && method === "DELETE") return stop(this.channels.get(sub));
    return json(404, { error: "no such call" });
  };

  private add(id: string, connectionId: string, token: string, expiration: number): UpstreamChannel {
    const channel = { id, connectionId, token, expiration, stopped: false };
    this.channels.set(id, channel);
    return channel;
  }
}

export interface ManagedHarness {
  clock: ManualClock;
  logger: ReturnType<typeof memoryLogger>;
  bus: MemoryBus;
  store: ChannelStore;
  upstream: StandInUpstream;
  integration: Integration;
  managed: ManagedChannels;
  channels: ReturnType<typeof createClient<typeof ChannelService>>;
  /** Channel webhooks delivered so far (decoded bodies). */
  webhooks: Record<string, unknown>[];
  /** A fresh runner on the same store (another process, or this one restarted). */
  runner(): ManagedChannels;
  /** The connections the stand-in connection service lists. */
  known: Set<string>;
  /** While true, listing integrations fails as a starting connection service would. */
  listFails: boolean;
  /** Adds the connection and publishes ConnectionCreated for it, then waits for the runner. */
  connect(connectionId: string): Promise<void>;
  /** Active channels of the connection in the registry now. */
  active(connectionId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts the runner for an integration of `provider` (managed on unless said otherwise). */
export async function managedHarness(
  provider: string,
  over: { managedChannels?: boolean; providerSettings?: Record<string, string>; store?: ChannelStore } = {},
): Promise<ManagedHarness> {
  const clock = new ManualClock();
  const logger = memoryLogger();
  const bus = new MemoryBus(undefined, { clock, logger });
  const store = over.store ?? SqliteChannelStore.open(":memory:");
  const upstream = new StandInUpstream(clock);
  const integration = create(IntegrationSchema, {
    uniqueKey: "int",
    provider,
    webhookUrl: WEBHOOK_URL,
    managedChannels: over.managedChannels ?? true,
    providerSettings: over.providerSettings ?? {},
  });
  const router = { router: { interceptors: [errorBoundary(logger)] } };
  /** The connections the connection service holds. */
  const known = new Set<string>();
  const harness = { listFails: false };
  const proxy = createClient(
    ProxyService,
    createRouterTransport(
      (r) =>
        r.service(ProxyService, {
          resolveUpstream: (req) => ({
            baseUrl: "http://upstream.stand-in",
            headers: { authorization: `Bearer ${req.connectionId}` },
            provider,
          }),
        }),
      router,
    ),
  );
  const connections = createClient(
    ConnectionService,
    createRouterTransport(
      (r) =>
        r.service(ConnectionService, {
          getIntegration: (req) => {
            if (req.uniqueKey !== integration.uniqueKey) throw notFound("unknown_provider_config", "no integration");
            return { integration };
          },
          listIntegrations: () => {
            if (harness.listFails) throw new ConnectError("connection service starting", Code.Unavailable);
            return { integrations: [integration] };
          },
          listConnections: (req) => {
            const ids = req.providerConfigKey === integration.uniqueKey ? [...known] : [];
            const page = ids.slice(req.page * req.limit, (req.page + 1) * req.limit);
            return { connections: page.map((connectionId) => ({ connectionId })), total: ids.length };
          },
        }),
      router,
    ),
  );
  const environment = async () => ENV;
  const runners: ManagedChannels[] = [];
  const runner = () => {
    const m = createManagedChannels({
      store,
      tokens,
      clock,
      logger,
      bus,
      environment,
      proxy,
      connections,
      fetch: upstream.fetch,
      pollIntervalMs: HOUR,
    });
    runners.push(m);
    return m;
  };
  const managed = runner();
  const impl = createChannelService({
    store,
    tokens,
    clock,
    logger,
    environment,
    proxy,
    connections,
    fetch: upstream.fetch,
    bus,
    managed,
  });
  const channels = createClient(
    ChannelService,
    createRouterTransport((r) => r.service(ChannelService, impl), router),
  );
  const webhooks: Record<string, unknown>[] = [];
  const consumer: Subscription = await bus.consume(queues.webhookDelivery, async (job) => {
    const d: DeliveryRequested = fromBinary(DeliveryRequestedSchema, job.data);
    if (d.type === "channel") webhooks.push(JSON.parse(new TextDecoder().decode(d.body)) as Record<string, unknown>);
    await job.ack();
  });
  await managed.start();
  return {
    get listFails() {
      return harness.listFails;
    },
    set listFails(fails: boolean) {
      harness.listFails = fails;
    },
    clock,
    logger,
    bus,
    store,
    upstream,
    integration,
    managed,
    channels,
    webhooks,
    runner,
    known,
    async connect(connectionId) {
      known.add(connectionId);
      const event = create(ConnectionCreatedSchema, {
        environmentId: ENV,
        providerConfigKey: "int",
        connectionId,
        provider,
        atMs: BigInt(clock.now()),
      });
      await bus.publish(subjects.connectionCreated("int"), toBinary(ConnectionCreatedSchema, event));
      await clock.advance(0);
      await managed.idle();
    },
    async active(connectionId) {
      const list = await store.list(ENV, { connectionId, state: "active" }, clock.now());
      return list.map((c) => c.id);
    },
    async close() {
      for (const m of runners) await m.stop();
      await consumer.stop();
      await bus.close();
      await store.close();
    },
  };
}
