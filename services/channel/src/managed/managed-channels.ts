import type { ChannelTokens } from "../channel-tokens.ts";
import { fromBinary } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { type Bus, type BusMessage, type Subscription, subjects } from "@junction/bus";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ConnectionCreatedSchema, ConnectionReauthorizedSchema } from "@junction/contracts/events/v1/events_pb";
import {
  type Clock,
  type Counter,
  type Logger,
  type MetricsRegistry,
  randomToken,
  type TimerHandle,
} from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { channelStops } from "../upstream-stop.ts";
import type { HttpFetch } from "../context.ts";
import type { ManagedSlot, ManagedSlotKey } from "../store/managed-records.ts";
import type { ChannelStore } from "../store/store.ts";
import { reconcileManaged } from "./reconcile.ts";
import { type RunDeps, runSlot } from "./run-slot.ts";

export const DEFAULT_MANAGED_POLL_MS = 5 * 60_000;
const DEFAULT_RECONCILE_MS = 3_600_000;
const DEFAULT_CLAIM_MS = 5 * 60_000;
/** Slots claimed at once by one process. */
const CLAIM_BATCH = 16;

export interface ManagedChannelsDeps {
  /** The process's metrics (channel stops). */
  metrics?: MetricsRegistry;
  /** The process's operations log: each create, renew and stop upstream is a `channel_call` operation. */
  operations?: OperationRecorder;
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

/** Junction's own management of notification channels, driven by the schedule in the registry. */
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
  return new ManagedChannelRunner(deps);
}

class ManagedChannelRunner implements ManagedChannels {
  private readonly owner = `mgr_${randomToken(9)}`;
  private readonly poll: number;
  private readonly claimMs: number;
  /** `stops` counts the stale channels' stops (upstream-stop.ts reads it from the deps it is handed). */
  private readonly runDeps: RunDeps & { stops: Counter };
  private readonly log: Logger;
  private timer: TimerHandle | undefined;
  private started = false;
  private stopped = false;
  private running: Promise<number> | undefined;
  private reconcileAt = Number.NEGATIVE_INFINITY;
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly deps: ManagedChannelsDeps) {
    this.poll = deps.pollIntervalMs ?? DEFAULT_MANAGED_POLL_MS;
    this.claimMs = deps.claimMs ?? DEFAULT_CLAIM_MS;
    this.runDeps = {
      ...deps,
      fetch: deps.fetch ?? ((input: string | URL, init?: RequestInit) => fetch(input, init)),
      timeoutMs: deps.timeoutMs ?? 15_000,
      retryBaseMs: deps.retryBaseMs ?? 60_000,
      retryMaxMs: deps.retryMaxMs ?? 3_600_000,
      stops: channelStops(deps.metrics),
    };
    this.log = deps.logger.child({ component: "managed-channels" });
  }

  async start(): Promise<void> {
    this.started = true;
    const group = { queueGroup: "channel-managed" };
    const { bus } = this.deps;
    this.subscriptions.push(
      await bus.subscribe(
        subjects.connectionCreated(),
        this.onConnection("connection_created", (d) => fromBinary(ConnectionCreatedSchema, d)),
        group,
      ),
      await bus.subscribe(
        subjects.connectionReauthorized(),
        this.onConnection("connection_reauthorized", (d) => fromBinary(ConnectionReauthorizedSchema, d)),
        group,
      ),
    );
    void this.runDue();
  }

  async schedule(key: ManagedSlotKey, reason: string): Promise<ManagedSlot | null> {
    const { store, clock } = this.deps;
    await store.managed.scheduleManaged(key, reason, clock.now(), clock.now());
    await this.runDue();
    return store.managed.getManaged(key);
  }

  runDue(): Promise<number> {
    const run = (this.running ?? Promise.resolve(0))
      .then(() => this.pass())
      .catch((err: unknown) => {
        this.log.warn("managed channels pass failed; the next one retries", { error: err });
        return 0;
      })
      .then(async (n) => {
        await this.arm().catch((err: unknown) => this.log.warn("managed channels timer not set", { error: err }));
        return n;
      })
      .finally(() => {
        if (this.running === run) this.running = undefined;
      });
    this.running = run;
    return run;
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    for (const s of this.subscriptions.splice(0)) await s.stop();
    while (this.running) await this.running;
  }

  /** One pass: the hourly reconcile when due, then every due slot, claimed in batches. */
  private async pass(): Promise<number> {
    const env = await this.deps.environment();
    if (this.started && this.deps.clock.now() >= this.reconcileAt) await this.reconcile(env);
    let ran = 0;
    for (;;) {
      const now = this.deps.clock.now();
      const slots = await this.deps.store.managed.claimDueManaged(
        env,
        now,
        this.owner,
        now + this.claimMs,
        CLAIM_BATCH,
      );
      if (slots.length === 0) break;
      for (const slot of slots) {
        await runSlot(this.runDeps, slot, this.owner).catch((err: unknown) => {
          // The claim lapses and another pass retries; only a registry that cannot be written gets here.
          this.log.error("managed channel run failed", { integration: slot.providerConfigKey, error: err });
        });
        ran++;
      }
    }
    return ran;
  }

  private async reconcile(env: string): Promise<void> {
    const { clock } = this.deps;
    try {
      const found = await reconcileManaged(this.deps, env);
      this.reconcileAt = clock.now() + (this.deps.reconcileIntervalMs ?? DEFAULT_RECONCILE_MS);
      if (found > 0) this.log.info("managed connections without a channel scheduled", { count: found });
    } catch (err) {
      // The connection service may not answer yet (starting): looked at again after the poll interval.
      this.reconcileAt = clock.now() + this.poll;
      this.log.warn("managed connections not reconciled; retried after the poll interval", { error: err });
    }
  }

  /** Sets the timer for the next due slot, or the poll interval, whichever is sooner. */
  private async arm(): Promise<void> {
    if (this.stopped || !this.started) return;
    const next = await this.deps.store.managed.nextManagedDue(await this.deps.environment());
    const now = this.deps.clock.now();
    const soonest = Math.min(next ?? Number.POSITIVE_INFINITY, this.reconcileAt);
    const delay = Math.min(this.poll, Math.max(0, soonest - now));
    this.timer?.cancel();
    this.timer = this.deps.clock.setTimer(() => {
      if (!this.stopped) void this.runDue();
    }, delay);
  }

  private onConnection(reason: string, read: (data: Uint8Array) => ManagedSlotKey) {
    return async (msg: BusMessage) => {
      const key = read(msg.data);
      try {
        const { integration } = await this.deps.connections.getIntegration({ uniqueKey: key.providerConfigKey });
        if (!integration?.managedChannels) return;
        await this.schedule(key, reason);
      } catch (err) {
        this.log.error("managed channel not scheduled", { integration: key.providerConfigKey, reason, error: err });
      }
    };
  }
}
