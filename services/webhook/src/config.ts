import { flagSetting, loadConfig } from "@junction/platform";
import { z } from "zod";

/** How messages are delivered; every field has a default and an environment variable. */
export interface DeliveryConfig {
  /**
   * Delay before each attempt round, in order: the first is the delay of the first round, and a
   * message with every round failed is exhausted. Svix's schedule by default.
   */
  retryScheduleMs: number[];
  /** Each retry delay is moved by up to this fraction either way, so retries of a burst spread out. */
  retryJitter: number;
  /** An endpoint must answer 2xx within this (wall-clock) time. */
  attemptTimeoutMs: number;
  /** A 429's Retry-After is honoured up to this long. */
  retryAfterMaxMs: number;
  /** An endpoint whose every attempt failed for this long is disabled (0: never). */
  disableAfterMs: number;
  /** Delivery rounds in flight at once. */
  concurrency: number;
  /** Notifications processed at once (matching and enqueueing). */
  inboundConcurrency: number;
  /** How long (channel id, message number) pairs are remembered to drop duplicates. */
  dedupRetentionMs: number;
  /** Succeeded and exhausted messages (and their attempts) older than this are deleted by the sweep; 0 keeps them. */
  messageRetentionMs: number;
  /** How often stored messages are swept for work no process is doing (crashed peers, other instances). */
  sweepIntervalMs: number;
  /** How long an integration looked up for a notification is remembered (0: asked every time). */
  integrationCacheMs: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as `250ms`, `5s`, `30m`, `2h`, `5d`; a bare number is milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * (UNITS[m[2] ?? "ms"] as number);
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === null)
        ctx.addIssue({ code: "custom", message: `"${value}" is not a duration (e.g. 500ms, 5s, 30m, 2h, 5d)` });
      return ms ?? 0;
    });

const schedule = z
  .string()
  .default("0s,5s,5m,30m,2h,5h,10h,10h")
  .transform((value, ctx) => {
    const parts = value.split(",").map((p) => p.trim());
    const ms = parts.map(parseDuration);
    if (parts.length === 0 || parts.length > 50 || ms.some((d) => d === null)) {
      ctx.addIssue({ code: "custom", message: "must be 1 to 50 comma-separated durations (e.g. 0s,5s,5m,30m,2h)" });
      return [0];
    }
    return ms as number[];
  });

/** Settings of the webhook service, read from JUNCTION_WEBHOOK_* variables. */
export const webhookConfigSchema = z.object({
  retrySchedule: schedule,
  retryJitter: z.coerce.number().min(0).max(0.5).default(0.1),
  deliveryTimeout: duration("15s"),
  retryAfterMax: duration("1h"),
  disableAfter: duration("5d"),
  deliveryConcurrency: z.coerce.number().int().min(1).max(1024).default(32),
  inboundConcurrency: z.coerce.number().int().min(1).max(256).default(32),
  dedupRetention: duration("31d"),
  messageRetention: duration("31d"),
  sweepInterval: duration("60s"),
  integrationCache: duration("1s"),
  /** Endpoints on private and loopback addresses allowed: local development and tests only (see address-policy.ts). */
  allowPrivateEndpoints: flagSetting,
  // Intake limits; a rate of 0 turns its limit off.
  intakeIntegrationRate: z.coerce.number().min(0).max(1_000_000).default(200),
  intakeIntegrationBurst: z.coerce.number().int().min(1).max(10_000_000).default(2000),
  intakeChannelRate: z.coerce.number().min(0).max(1_000_000).default(10),
  intakeChannelBurst: z.coerce.number().int().min(1).max(10_000_000).default(50),
  intakeTrackedChannels: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  intakeMaxPending: z.coerce.number().int().min(0).max(100_000_000).default(10_000),
  intakePendingRecount: duration("1s"),
  intakeFullRetryAfter: duration("30s"),
});

/** Limits on what the webhook URL takes in: memory and disk bounded by these, not by a flood. */
export interface IntakeConfig {
  /** Notifications recorded per second per integration (0: no limit); past it intake answers 503. */
  integrationRatePerSecond: number;
  /** How many an integration may record at once above its rate. */
  integrationBurst: number;
  /** Notifications recorded per second per channel (0: no limit). */
  channelRatePerSecond: number;
  /** How many a channel may record at once above its rate. */
  channelBurst: number;
  /** Channels whose rate is tracked at most; past it the older half is forgotten (a full bucket each). */
  trackedChannels: number;
  /** Notifications not yet processed plus messages not yet final, per integration, past which intake answers 503 (0: no cap). */
  maxPendingPerIntegration: number;
  /** How long an integration's count of stored pending messages is reused before it is counted again. */
  pendingRecountMs: number;
  /** The Retry-After of a refusal for pending work at its cap. */
  fullRetryAfterMs: number;
}

/** The intake limits from the environment (JUNCTION_WEBHOOK_INTAKE_*). */
export function loadIntakeConfig(env: Record<string, string | undefined> = process.env): IntakeConfig {
  const cfg = loadConfig(webhookConfigSchema, { prefix: "JUNCTION_WEBHOOK_", env });
  return {
    integrationRatePerSecond: cfg.intakeIntegrationRate,
    integrationBurst: cfg.intakeIntegrationBurst,
    channelRatePerSecond: cfg.intakeChannelRate,
    channelBurst: cfg.intakeChannelBurst,
    trackedChannels: cfg.intakeTrackedChannels,
    maxPendingPerIntegration: cfg.intakeMaxPending,
    pendingRecountMs: cfg.intakePendingRecount,
    fullRetryAfterMs: Math.max(1000, cfg.intakeFullRetryAfter),
  };
}

/** The delivery settings from the environment (JUNCTION_WEBHOOK_RETRY_SCHEDULE, ...). */
export function loadDeliveryConfig(env: Record<string, string | undefined> = process.env): DeliveryConfig {
  const cfg = loadConfig(webhookConfigSchema, { prefix: "JUNCTION_WEBHOOK_", env });
  return {
    retryScheduleMs: cfg.retrySchedule,
    retryJitter: cfg.retryJitter,
    attemptTimeoutMs: Math.max(1, cfg.deliveryTimeout),
    retryAfterMaxMs: cfg.retryAfterMax,
    disableAfterMs: cfg.disableAfter,
    concurrency: cfg.deliveryConcurrency,
    inboundConcurrency: cfg.inboundConcurrency,
    dedupRetentionMs: cfg.dedupRetention,
    messageRetentionMs: cfg.messageRetention,
    sweepIntervalMs: Math.max(1000, cfg.sweepInterval),
    integrationCacheMs: cfg.integrationCache,
  };
}

/** Whether endpoints on private addresses are allowed (JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS). */
export function loadAllowPrivateEndpoints(env: Record<string, string | undefined> = process.env): boolean {
  return loadConfig(webhookConfigSchema, { prefix: "JUNCTION_WEBHOOK_", env }).allowPrivateEndpoints;
}

/** The defaults, for tests and embedders that do not read the environment. */
export const DEFAULT_DELIVERY_CONFIG: DeliveryConfig = loadDeliveryConfig({});
export const DEFAULT_INTAKE_CONFIG: IntakeConfig = loadIntakeConfig({});
