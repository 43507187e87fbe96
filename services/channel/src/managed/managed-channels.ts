import type { ChannelTokens } from "../channel-tokens.ts";
import { fromBinary } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { type Bus, type BusMessage, type Subscription, subjects } from "@junction/bus";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ConnectionCreatedSchema, ConnectionReauthorizedSchema } from "@junction/contracts/events/v1/events_pb";
import { type Clock, type Logger, type MetricsRegistry, randomToken, type TimerHandle } from "@junction/platform";
import { channelStops } from "../upstream-stop.ts";
import type { HttpFetch } from "../context.ts";
import type { ManagedSlot, ManagedSlotKey } from "../store/managed-records.ts";
import type { ChannelStore } from "../store/store.ts";
import { reconcileManaged } from "./reconcile.ts";
import { runSlot } from "./run-slot.ts";

export const DEFAULT_MANAGED_POLL_MS = 5 * 60_000;
const DEFAULT_RECONCILE_MS = 3_600_000;
const DEFAULT_CLAIM_MS = 5 * 60_000;
/** Slots claimed at once by one process. */
const CLAIM_BATCH = 16;

export interface ManagedChannelsDeps {
  /** The process's metrics (channel stops). */
  metrics?: MetricsRegistry;
  store: ChannelStore;
  /** Seals the tokens of the channels it creates, opens them to renew and stop. */
  tokens: ChannelTokens;
  clock: Clock;
  logger: Logger;
  bus: Bus;
  environment: () => Promise<string>;
  proxy: Client<typeof ProxyService>;
  connections: Client<typeof ConnectionService>;
  fetch?: HttpFetch;
  /** Deadline of one upstream call (default 15 s). */
  timeoutMs?: number;
  /** Longest time between looks at the schedule, for slots another process scheduled (default 5 minutes). */
  pollIntervalMs?: number;
  /** How long a claim on a slot holds before another process may take it over (default 5 minutes). */
  claimMs?: number;
  /** Time between two looks for managed connections without a slot (default one hour; at start too). */
  reconcileIntervalMs?: number;
  /** Retry backoff of a failed step: first delay and cap (defaults one minute and one hour). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** Junction's own management of notification channels (issue 22, item 4), driven by the schedule in the registry. */
export interface ManagedChannels {
  /** Subscribes to connection events and starts the timer; the schedule left by earlier runs is resumed. */
  start(): Promise<void>;
  /** Schedules a connection's slot now for `reason` and runs what is due; resolves with the slot after. */
  schedule(key: ManagedSlotKey, reason: string): Promise<ManagedSlot | null>;
  /** Claims and runs every slot due now (after the pass in progress, if any); returns how many ran. */
  runDue(): Promise<number>;
  /** Resolves once no pass is in progress. */
  idle(): Promise<void>;
  /** Stops the timer and the subscriptions and waits for the pass in progress. */
  stop(): Promise<void>;
}

/**
 * Creates the managed channels' runner. The schedule lives in the registry (one slot per connection:
 * its channel and next due time), so timers only say when to look: a restarted process resumes it,
 * and of several processes the claim lets one run each slot.
 */
export function createManagedChannels(deps: ManagedChannelsDeps): ManagedChannels {
  const owner = `mgr_${randomToken(9)}`;
  const poll = deps.pollIntervalMs ?? DEFAULT_MANAGED_POLL_MS;
  const claimMs = deps.claimMs ?? DEFAULT_CLAIM_MS;
  const runDeps = {
    ...deps,
    fetch: deps.fetch ?? ((input: string | URL, init?: RequestInit) => fetch(input, init)),
    timeoutMs: deps.timeoutMs ?? 15_000,
    retryBaseMs: deps.retryBaseMs ?? 60_000,
    retryMaxMs: deps.retryMaxMs ?? 3_600_000,
    stops: channelStops(deps.metrics),
  };
  const log = deps.logger.child({ component: "managed-channels" });
  let timer: TimerHandle | undefined;
  let started = false;
  let stopped = false;
  let running: Promise<number> | undefined;
  let reconcileAt = Number.NEGATIVE_INFINITY;
  const subscriptions: Subscription[] = [];

  const pass = async (): Promise<number> => {
    const env = await deps.environment();
    if (started && deps.clock.now() >= reconcileAt) {
      try {
        const found = await reconcileManaged(deps, env);
        reconcileAt = deps.clock.now() + (deps.reconcileIntervalMs ?? DEFAULT_RECONCILE_MS);
        if (found > 0) log.info("managed connections without a channel scheduled", { count: found });
      } catch (err) {
        // The connection service may not answer yet (starting): looked at again after the poll interval.
        reconcileAt = deps.clock.now() + poll;
        log.warn("managed connections not reconciled; retried after the poll interval", { error: err });
      }
    }
    let ran = 0;
    for (;;) {
      const now = deps.clock.now();
      const slots = await deps.store.managed.claimDueManaged(env, now, owner, now + claimMs, CLAIM_BATCH);
      if (slots.length === 0) break;
      for (const slot of slots) {
        await runSlot(runDeps, slot, owner).catch((err: unknown) => {
          // The claim lapses and another pass retries; only a registry that cannot be written gets here.
          log.error("managed channel run failed", { integration: slot.providerConfigKey, error: err });
        });
        ran++;
      }
    }
    return ran;
  };
  /** Sets the timer for the next due slot, or the poll interval, whichever is sooner. */
  const arm = async () => {
    if (stopped || !started) return;
    const next = await deps.store.managed.nextManagedDue(await deps.environment());
    const now = deps.clock.now();
    const soonest = Math.min(next ?? Number.POSITIVE_INFINITY, reconcileAt);
    const delay = Math.min(poll, Math.max(0, soonest - now));
    timer?.cancel();
    timer = deps.clock.setTimer(tick, delay);
  };
  const runDue = (): Promise<number> => {
    const run = (running ?? Promise.resolve(0))
      .then(pass)
      .catch((err: unknown) => {
        log.warn("managed channels pass failed; the next one retries", { error: err });
        return 0;
      })
      .then(async (n) => {
        await arm().catch((err: unknown) => log.warn("managed channels timer not set", { error: err }));
        return n;
      })
      .finally(() => {
        if (running === run) running = undefined;
      });
    running = run;
    return run;
  };
  const tick = () => {
    if (!stopped) void runDue();
  };
  const schedule = async (key: ManagedSlotKey, reason: string) => {
    await deps.store.managed.scheduleManaged(key, reason, deps.clock.now(), deps.clock.now());
    await runDue();
    return deps.store.managed.getManaged(key);
  };
  const onConnection = (reason: string, read: (data: Uint8Array) => ManagedSlotKey) => async (msg: BusMessage) => {
    const key = read(msg.data);
    try {
      const { integration } = await deps.connections.getIntegration({ uniqueKey: key.providerConfigKey });
      if (!integration?.managedChannels) return;
      await schedule(key, reason);
    } catch (err) {
      log.error("managed channel not scheduled", { integration: key.providerConfigKey, reason, error: err });
    }
  };

  return {
    async start() {
      started = true;
      const group = { queueGroup: "channel-managed" };
      subscriptions.push(
        await deps.bus.subscribe(
          subjects.connectionCreated(),
          onConnection("connection_created", (d) => fromBinary(ConnectionCreatedSchema, d)),
          group,
        ),
        await deps.bus.subscribe(
          subjects.connectionReauthorized(),
          onConnection("connection_reauthorized", (d) => fromBinary(ConnectionReauthorizedSchema, d)),
          group,
        ),
      );
      void runDue();
    },
    schedule,
    runDue,
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      timer?.cancel();
      for (const s of subscriptions.splice(0)) await s.stop();
      while (running) await running;
    },
  };
}
