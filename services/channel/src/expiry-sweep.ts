import type { Bus } from "@junction/bus";
import type { Clock, Logger, TimerHandle } from "@junction/platform";
import { enqueueExpiryWarning } from "./expiry-webhook.ts";
import type { ChannelRecord } from "./store/records.ts";
import type { ChannelStore } from "./store/store.ts";

const DAY_MS = 24 * 3_600_000;
export const DEFAULT_SWEEP_INTERVAL_MS = 15 * 60_000;

export interface ExpirySweepDeps {
  store: ChannelStore;
  /** Sweeps run on this clock's timers, so that a day passes in a test's millisecond. */
  clock: Clock;
  logger: Logger;
  bus: Bus;
  environment: () => Promise<string>;
  /** Time between sweeps (default 15 minutes). */
  intervalMs?: number;
  /** Channels expiring within this are warned about (default one day, as the issue asks). */
  warnWithinMs?: number;
}

export interface SweepReport {
  /** Channels written as expired by this sweep. */
  expired: string[];
  /** Channels warned about by this sweep. */
  warned: string[];
}

export interface ExpirySweeps {
  /** Runs a sweep now (after the one in progress, if any). */
  sweepNow(): Promise<SweepReport>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/**
 * One sweep of the registry: writes `expired` on the channels past their expiration (spec: lifecycle,
 * "Time reaches expiration"), then warns, once per channel, about each active channel that expires
 * within a day and has no successor. Channels are never renewed by the upstream (spec: Limits), so
 * such a channel means the renewal sync is not running, and notifications are about to stop. A
 * managed channel whose renewal Junction has scheduled is left out.
 */
export async function sweepChannels(deps: ExpirySweepDeps): Promise<SweepReport> {
  const log = deps.logger.child({ component: "channel-expiry" });
  const env = await deps.environment();
  const now = deps.clock.now();
  const expired = await deps.store.markExpired(env, now);
  for (const c of expired) {
    log.info("channel expired", { channelId: c.id, connectionId: c.connectionId, integration: c.providerConfigKey });
  }
  const expiring = await deps.store.list(
    env,
    { state: "active", expiringBefore: now + (deps.warnWithinMs ?? DAY_MS) },
    now,
  );
  const warned: string[] = [];
  for (const channel of expiring) {
    if (channel.expiryWarnedAt !== null) continue;
    const successors = await deps.store.list(env, { connectionId: channel.connectionId, state: "active" }, now);
    if (successors.some((s) => isSuccessor(s, channel))) continue;
    // A managed channel with a renewal scheduled is Junction's to renew; a failure there is told as "failed".
    const slot = await deps.store.managed.getManaged(channel);
    if (slot?.channelId === channel.id && slot.dueAt !== null) continue;
    // The claim makes one warning per channel, however many sweepers run.
    if (!(await deps.store.claimExpiryWarning(env, channel.id, now))) continue;
    try {
      const messageId = await enqueueExpiryWarning(deps.bus, channel, now);
      log.warn("channel expires within a day and has no successor", {
        channelId: channel.id,
        connectionId: channel.connectionId,
        integration: channel.providerConfigKey,
        expiration: new Date(channel.expiration ?? now).toISOString(),
        messageId,
      });
      warned.push(channel.id);
    } catch (err) {
      await deps.store.releaseExpiryWarning(env, channel.id, now);
      log.error("channel expiry warning not queued; the next sweep retries", { channelId: channel.id, error: err });
    }
  }
  return { expired: expired.map((c) => c.id), warned };
}

/**
 * A newer channel of the same connection on the same watched resource that outlives `channel`: the
 * renewal took place (spec: lifecycle, "Renewal"), whether or not the old one was stopped yet.
 */
function isSuccessor(candidate: ChannelRecord, channel: ChannelRecord): boolean {
  if (candidate.id === channel.id || candidate.providerConfigKey !== channel.providerConfigKey) return false;
  const sameResource =
    (candidate.resourceId !== "" && candidate.resourceId === channel.resourceId) ||
    (candidate.resourceUri !== "" && candidate.resourceUri === channel.resourceUri);
  const outlives =
    candidate.expiration === null || (channel.expiration !== null && candidate.expiration > channel.expiration);
  return sameResource && outlives;
}

/**
 * Sweeps at start and then every `intervalMs` of the clock. The next timer is set when one fires, so
 * the schedule does not drift with the sweeps' own duration; a tick that finds a sweep still running
 * is skipped.
 */
export function startExpirySweeps(deps: ExpirySweepDeps): ExpirySweeps {
  const interval = deps.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  let timer: TimerHandle | undefined;
  let stopped = false;
  let running: Promise<SweepReport> | undefined;
  const sweep = (): Promise<SweepReport> => {
    const run = (running ?? Promise.resolve())
      .then(() => sweepChannels(deps))
      .catch((err: unknown): SweepReport => {
        deps.logger.warn("channel sweep failed; the next one retries", { error: err });
        return { expired: [], warned: [] };
      })
      .finally(() => {
        if (running === run) running = undefined;
      });
    running = run;
    return run;
  };
  const tick = () => {
    if (stopped) return;
    timer = deps.clock.setTimer(tick, interval);
    if (!running) void sweep();
  };
  timer = deps.clock.setTimer(tick, interval);
  void sweep();
  return {
    sweepNow: sweep,
    async stop() {
      stopped = true;
      timer?.cancel();
      await running;
    },
  };
}
