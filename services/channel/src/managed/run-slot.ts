import type { Client } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { ConnectionService, Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import { type Clock, exponentialDelay, fromConnectError, type Logger } from "@junction/platform";
import { channelProvider } from "../channel-providers.ts";
import {
  type ManagedOutcome,
  type ManagedSlot,
  STOP_REPLACED_REASON,
  STOPPED_REASON,
} from "../store/managed-records.ts";
import type { ChannelRecord } from "../store/records.ts";
import { stopUpstream } from "../upstream-stop.ts";
import { createChannel, renewInPlace, type StepDeps, type StepResult } from "./channel-steps.ts";
import { type ChannelEvent, enqueueChannelEvent } from "./managed-webhook.ts";
import { NOT_MANAGED_REASON } from "./reconcile.ts";

export interface RunDeps extends StepDeps {
  connections: Client<typeof ConnectionService>;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  /** First retry delay of a failed create or renew; doubles per failure (default one minute). */
  retryBaseMs: number;
  /** Longest retry delay (default one hour). */
  retryMaxMs: number;
}

/** A renewal is never scheduled sooner than this after the previous step (a channel that lives shorter than its margin). */
const MIN_RENEW_GAP_MS = 60_000;

/** Why a slot is left with nothing due, when its run finds there is nothing to keep. */
const GONE = {
  integration: "integration_gone",
  connection: "connection_gone",
  notManaged: NOT_MANAGED_REASON,
} as const;

/**
 * Runs one claimed slot: creates the connection's channel when none is active, else renews it (in
 * place, or a new one created and the old one stopped, as the provider's adapter says), records it
 * and schedules the next renewal `renewMarginMs` before the expiry. A failure is retried with the
 * backoff; the customer is told of the first failure of a series, of every creation and renewal.
 */
export async function runSlot(deps: RunDeps, slot: ManagedSlot, owner: string): Promise<ManagedSlot | null> {
  const now = deps.clock.now();
  const log = deps.logger.child({
    component: "managed-channels",
    integration: slot.providerConfigKey,
    connectionId: slot.connectionId,
  });
  const finish = (outcome: ManagedOutcome) =>
    deps.store.managed.finishManaged(slot, owner, slot.generation, outcome, deps.clock.now());
  let integration: Integration | "gone";
  try {
    integration = await integrationOf(deps, slot.providerConfigKey);
  } catch (err) {
    return failed(deps, slot, log, finish, failureOf(err, log));
  }
  if (integration === "gone" || !integration.managedChannels) {
    const reason = integration === "gone" ? GONE.integration : GONE.notManaged;
    log.info("managed channel not kept: nothing to manage", { reason });
    return finish({ dueAt: null, reason });
  }
  const current = slot.channelId ? await deps.store.get(slot.environmentId, slot.channelId, now) : null;
  const provider = channelProvider(integration.provider);
  // A channel an earlier renewal replaced but could not stop goes first: only one may stay active.
  const staleStopped = slot.staleChannelId ? await stopStale(deps, slot, slot.staleChannelId, now) : true;
  if (slot.reason === STOP_REPLACED_REASON) {
    if (!staleStopped) {
      const message = "The replaced channel could not be stopped upstream.";
      return failed(deps, slot, log, finish, { status: 0, code: "replaced_channel_not_stopped", message });
    }
    log.info("replaced managed channel stopped", { channelId: slot.staleChannelId });
    const next = current?.state === "active" ? renewAt(provider, current, now) : now;
    return finish({ staleChannelId: null, dueAt: next, reason: "renewal" });
  }
  const active = current?.state === "active" ? current : null;
  const step = await renewOrCreate(deps, slot, integration, active, now, log);
  if (step === "connection_gone") return finish({ dueAt: null, reason: GONE.connection });
  const { result, previous } = step;
  if ("failure" in result) return failed(deps, slot, log, finish, result.failure);
  return keepChannel(deps, slot, log, finish, {
    channel: result.channel,
    renewed: active !== null,
    previous,
    stale: staleStopped ? null : slot.staleChannelId,
    renewal: renewAt(provider, result.channel, now),
  });
}

type Finish = (outcome: ManagedOutcome) => Promise<ManagedSlot | null>;

/**
 * Renews the active channel in place when the provider can (a channel the upstream no longer knows is recorded
 * stopped and a new one created), else creates a new one (the active one, if any, is then `previous`: stopped
 * after). A connection that is gone ends the slot; any other failure is the step's failure.
 */
async function renewOrCreate(
  deps: RunDeps,
  slot: ManagedSlot,
  integration: Integration,
  active: ChannelRecord | null,
  now: number,
  log: Logger,
): Promise<{ result: Exclude<StepResult, { gone: true }>; previous: ChannelRecord | null } | "connection_gone"> {
  let result: StepResult;
  let previous: ChannelRecord | null = null;
  try {
    if (active && typeof channelProvider(integration.provider)?.renew === "function") {
      result = await renewInPlace(deps, slot, integration, active, now);
      if ("gone" in result) {
        await deps.store.recordStop(active.environmentId, active.id, active.resourceId, now);
        result = await createChannel(deps, slot, integration, now);
      }
    } else {
      result = await createChannel(deps, slot, integration, now);
      previous = active;
    }
  } catch (err) {
    const e = fromConnectError(err);
    if (e.code === "unknown_connection" || e.code === "unknown_provider_config") {
      log.info("managed channel not kept: the connection is gone", { code: e.code });
      return "connection_gone";
    }
    result = { failure: failureOf(err, log) };
  }
  if ("gone" in result) {
    return {
      result: { failure: { status: 404, code: "upstream_refused", message: "The upstream answered 404." } },
      previous,
    };
  }
  return { result, previous };
}

/**
 * Records the slot's new or renewed channel and its next renewal; stops the channel it replaced (create-then-stop:
 * the new one is active before the old one goes, so no change is missed); tells the customer.
 */
async function keepChannel(
  deps: RunDeps,
  slot: ManagedSlot,
  log: Logger,
  finish: Finish,
  kept: {
    channel: ChannelRecord;
    renewed: boolean;
    previous: ChannelRecord | null;
    stale: string | null;
    renewal: number;
  },
): Promise<ManagedSlot | null> {
  const { channel, renewed, previous, renewal } = kept;
  let stale = kept.stale;
  if (previous && previous.id !== channel.id) {
    const stopped = await stopUpstream(deps, previous);
    if (stopped.outcome === "failed") {
      log.warn("replaced managed channel not stopped; retried with backoff", { channelId: previous.id });
      stale = previous.id;
    }
  }
  const written = await finish({
    channelId: channel.id,
    staleChannelId: stale,
    // With a replaced channel still to stop, the slot is due again soon, for that alone.
    dueAt: stale ? Math.min(renewal, deps.clock.now() + deps.retryBaseMs) : renewal,
    reason: stale ? STOP_REPLACED_REASON : "renewal",
  });
  if (written && written.dueAt === null && written.reason === STOPPED_REASON) {
    // The connection's channels were stopped while this run created one: it must not outlive them.
    log.info("managed channel stopped: the connection's channels were stopped during its creation", {
      channelId: channel.id,
    });
    await stopUpstream(deps, channel);
    return written;
  }
  log.info(renewed ? "managed channel renewed" : "managed channel created", {
    channelId: channel.id,
    previousChannelId: previous?.id,
    reason: slot.reason,
    expiration: channel.expiration === null ? undefined : new Date(channel.expiration).toISOString(),
  });
  await tell(deps, slot, log, {
    operation: renewed ? "renewed" : "created",
    managed: true,
    reason: slot.reason,
    channel,
    ...(previous && previous.id !== channel.id ? { previousChannelId: previous.id } : {}),
  });
  return written;
}

/** Stops a replaced channel still active; true when it is stopped (or no longer active, or unknown). */
async function stopStale(deps: RunDeps, slot: ManagedSlot, channelId: string, now: number): Promise<boolean> {
  const stale = await deps.store.get(slot.environmentId, channelId, now);
  if (stale?.state !== "active") return true;
  return (await stopUpstream(deps, stale)).outcome !== "failed";
}

/** The next renewal: `renewMarginMs` before the expiry (or before the longest life, when the answer gave none). */
export function renewAt(provider: ReturnType<typeof channelProvider>, channel: ChannelRecord, now: number): number {
  const margin = provider?.renewMarginMs ?? 0;
  const expiration = channel.expiration ?? now + (provider?.maxLifetimeMs ?? 0);
  const at = expiration - margin;
  return at > now ? at : now + Math.max(MIN_RENEW_GAP_MS, Math.floor((expiration - now) / 2));
}

async function failed(
  deps: RunDeps,
  slot: ManagedSlot,
  log: Logger,
  finish: (o: ManagedOutcome) => Promise<ManagedSlot | null>,
  failure: { status: number; code: string; message: string },
): Promise<ManagedSlot | null> {
  const attempts = slot.attempts + 1;
  const nextAttemptAt = deps.clock.now() + exponentialDelay(slot.attempts, deps.retryBaseMs, deps.retryMaxMs);
  log.warn("managed channel step failed; retried with backoff", {
    reason: slot.reason,
    code: failure.code,
    status: failure.status,
    message: failure.message,
    attempts,
    nextAttemptAt: new Date(nextAttemptAt).toISOString(),
  });
  const written = await finish({
    dueAt: nextAttemptAt,
    reason: slot.reason,
    error: `${failure.code}: ${failure.message}`,
  });
  // The first failure of a series is told; the retries are in the log until one succeeds.
  if (attempts === 1) {
    await tell(deps, slot, log, {
      operation: "failed",
      managed: true,
      reason: slot.reason,
      channel: null,
      error: { code: failure.code, message: failure.message, attempts, nextAttemptAt },
    });
  }
  return written;
}

/** Sends a channel webhook; a queue failure is logged, never fails the step (the registry holds the truth). */
async function tell(deps: RunDeps, slot: ManagedSlot, log: Logger, event: ChannelEvent): Promise<void> {
  try {
    const messageId = await enqueueChannelEvent(deps.bus, slot, event, deps.clock.now());
    log.info("channel webhook queued", { operation: event.operation, messageId });
  } catch (err) {
    log.error("channel webhook not queued", { operation: event.operation, error: err });
  }
}

async function integrationOf(deps: RunDeps, key: string): Promise<Integration | "gone"> {
  try {
    const { integration } = await deps.connections.getIntegration({ uniqueKey: key });
    return integration ?? "gone";
  } catch (err) {
    const e = fromConnectError(err);
    if (e.code === "unknown_provider_config") return "gone";
    throw e;
  }
}

/** A thrown error as a failure: its stable code; an internal error's cause only in the log. */
function failureOf(err: unknown, log: Logger): { status: number; code: string; message: string } {
  const e = fromConnectError(err);
  if (e.code !== "internal_error") return { status: 0, code: e.code, message: e.message };
  log.error("managed channel step failed", { error: err });
  return { status: 0, code: e.code, message: "internal error" };
}
