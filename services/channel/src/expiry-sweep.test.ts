import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { fromBinary } from "@bufbuild/protobuf";
import { type Bus, MemoryBus, queues, type Subscription } from "@junction/bus";
import { type DeliveryRequested, DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { ManualClock, memoryLogger } from "@junction/platform";
import { type ExpirySweeps, startExpirySweeps } from "./expiry-sweep.ts";
import type { ChannelWatch } from "./store/records.ts";
import { SqliteChannelStore } from "./store/sqlite-store.ts";

const ENV = "env_sweep_test";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("channel expiry sweeps", () => {
  let clock: ManualClock;
  let logger: ReturnType<typeof memoryLogger>;
  let bus: MemoryBus;
  let store: SqliteChannelStore;
  let consumer: Subscription;
  let delivered: DeliveryRequested[];
  const running: ExpirySweeps[] = [];

  beforeEach(async () => {
    clock = new ManualClock();
    logger = memoryLogger();
    bus = new MemoryBus(undefined, { clock, logger });
    store = SqliteChannelStore.open(":memory:");
    delivered = [];
    consumer = await bus.consume(queues.webhookDelivery, async (job) => {
      delivered.push(fromBinary(DeliveryRequestedSchema, job.data));
      job.ack();
    });
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop();
    await consumer.stop();
    await bus.close();
    await store.close();
  });

  const start = (over: { bus?: Bus } = {}) => {
    const sweeps = startExpirySweeps({
      store,
      clock,
      logger,
      bus: over.bus ?? bus,
      environment: async () => ENV,
      intervalMs: HOUR,
    });
    running.push(sweeps);
    return sweeps;
  };
  const watch = (channelId: string, over: Partial<ChannelWatch> = {}) =>
    store.recordWatch({
      environmentId: ENV,
      channelId,
      resourceId: "res-primary",
      providerConfigKey: "cal",
      connectionId: "conn-a",
      resourceUri: "https://www.googleapis.com/calendar/v3/calendars/a%40example.com/events?alt=json",
      expiration: clock.now() + 7 * DAY,
      token: null,
      at: clock.now(),
      ...over,
    });
  const warnLines = () => logger.lines.filter((l) => l.includes("expires within a day and has no successor"));
  const waitDelivered = async (n: number) => {
    const deadline = Date.now() + 5000;
    while (delivered.length < n) {
      if (Date.now() > deadline) throw new Error(`wanted ${n} deliveries, got ${delivered.length}`);
      await new Promise<void>((r) => setImmediate(r));
    }
    return delivered;
  };

  test("on the clock's schedule, warns once (log and webhook) about a channel a day from expiring", async () => {
    await watch("ch-1");
    const expiration = clock.now() + 7 * DAY;
    start();
    await clock.advance(5 * DAY);
    expect(delivered).toEqual([]);
    await clock.advance(DAY + HOUR);
    const [job] = await waitDelivered(1);
    expect(job).toMatchObject({
      environmentId: ENV,
      type: "channel",
      providerConfigKey: "cal",
      connectionId: "conn-a",
    });
    expect(job?.messageId).toStartWith("msg_");
    expect(JSON.parse(new TextDecoder().decode(job?.body))).toEqual({
      from: "junction",
      type: "channel",
      operation: "expiring",
      providerConfigKey: "cal",
      connectionId: "conn-a",
      channel: {
        id: "ch-1",
        resourceId: "res-primary",
        resourceUri: "https://www.googleapis.com/calendar/v3/calendars/a%40example.com/events?alt=json",
        expiration: new Date(expiration).toISOString(),
        expirationMs: expiration,
      },
      expiresInMs: expiration - (await store.get(ENV, "ch-1", clock.now()))!.expiryWarnedAt!,
    });
    expect(warnLines()).toHaveLength(1);
    expect(warnLines()[0]).toContain('"level":"warn"');
    // Later sweeps, up to and past expiry, warn no more.
    await clock.advance(DAY);
    await running[0]?.sweepNow();
    expect(delivered).toHaveLength(1);
    expect(warnLines()).toHaveLength(1);
  });

  test("a channel with a successor on the same resource is not warned about", async () => {
    await watch("ch-old");
    await clock.advance(6 * DAY);
    // The renewal created the new channel; the old one is not stopped (yet).
    await watch("ch-new");
    await watch("ch-elsewhere", { connectionId: "conn-b", resourceId: "res-b", resourceUri: "https://x/b" });
    const sweeps = start();
    expect(await sweeps.sweepNow()).toEqual({ expired: [], warned: [] });
    expect(delivered).toEqual([]);
  });

  test("a successor that does not outlive the channel, or watches another resource, does not count", async () => {
    await watch("ch-1");
    await watch("ch-shorter", { expiration: clock.now() + 2 * HOUR, at: clock.now() + 1 });
    await watch("ch-other-resource", {
      resourceId: "res-other",
      resourceUri: "https://x/other",
      expiration: clock.now() + 30 * DAY,
      at: clock.now() + 2,
    });
    await clock.advance(6 * DAY + HOUR);
    await start().sweepNow();
    const jobs = await waitDelivered(1);
    expect(jobs.map((j) => j.connectionId)).toEqual(["conn-a"]);
    expect((await store.get(ENV, "ch-1", clock.now()))?.expiryWarnedAt).toBe(clock.now());
  });

  test("a managed channel with its renewal scheduled is Junction's to renew: not warned about", async () => {
    await watch("ch-managed");
    const slot = { environmentId: ENV, providerConfigKey: "cal", connectionId: "conn-a" };
    const { generation } = await store.managed.scheduleManaged(slot, "connection_created", clock.now(), clock.now());
    await store.managed.claimDueManaged(ENV, clock.now(), "p", clock.now() + HOUR, 1);
    await store.managed.finishManaged(
      slot,
      "p",
      generation,
      { channelId: "ch-managed", dueAt: clock.now() + 8 * DAY, reason: "renewal" },
      clock.now(),
    );
    const sweeps = start();
    await clock.advance(6 * DAY + HOUR);
    expect((await sweeps.sweepNow()).warned).toEqual([]);
    // Its schedule ended (managed channels turned off): warned as any other.
    await store.managed.cancelManaged(ENV, "cal", "conn-a", clock.now());
    expect((await sweeps.sweepNow()).warned).toEqual(["ch-managed"]);
  });

  test("stopped channels and channels of unknown expiration are never warned about", async () => {
    await watch("ch-stopped");
    await store.recordStop(ENV, "ch-stopped", "res-primary", clock.now());
    await watch("ch-forever", { expiration: null, resourceId: "res-f", resourceUri: "https://x/f" });
    await clock.advance(6 * DAY + HOUR);
    expect((await start().sweepNow()).warned).toEqual([]);
    expect(delivered).toEqual([]);
  });

  test("writes expired on channels past their expiration", async () => {
    await watch("ch-1", { expiration: clock.now() + 2 * HOUR });
    const sweeps = start();
    await clock.advance(3 * HOUR);
    await sweeps.sweepNow();
    // Stored, not only read as expired: the registry row itself says so.
    const rows = await store.list(ENV, {}, 0);
    expect(rows.map((c) => [c.id, c.state])).toEqual([["ch-1", "expired"]]);
    expect(logger.lines.some((l) => l.includes('"msg":"channel expired"') && l.includes('"channelId":"ch-1"'))).toBe(
      true,
    );
  });

  test("of several sweepers on one registry, exactly one warns", async () => {
    await watch("ch-1");
    await clock.advance(6 * DAY + HOUR);
    // Each starts with a sweep of its own, all at once.
    const reports = await Promise.all([start(), start(), start()].map((s) => s.sweepNow()));
    await waitDelivered(1);
    await Promise.all(running.map((s) => s.sweepNow()));
    expect(delivered).toHaveLength(1);
    expect(warnLines()).toHaveLength(1);
    expect(reports.flatMap((r) => r.warned)).toEqual([]);
  });

  test("a warning that could not be queued is retried by the next sweep", async () => {
    let failures = 1;
    const flaky: Bus = Object.assign(Object.create(bus) as MemoryBus, {
      enqueue: async (...args: Parameters<Bus["enqueue"]>) => {
        if (failures-- > 0) throw new Error("bus unavailable");
        return bus.enqueue(...args);
      },
    });
    await watch("ch-1");
    await clock.advance(6 * DAY + HOUR);
    // The sweep at start meets the failure.
    const sweeps = start({ bus: flaky });
    expect(await sweeps.sweepNow()).toMatchObject({ warned: ["ch-1"] });
    await waitDelivered(1);
    expect(delivered).toHaveLength(1);
    expect(logger.lines.some((l) => l.includes("expiry warning not queued"))).toBe(true);
    expect((await store.get(ENV, "ch-1", clock.now()))?.expiryWarnedAt).toBe(clock.now());
  });
});
