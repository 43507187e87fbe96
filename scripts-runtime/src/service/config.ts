import { loadConfig } from "@junction/platform";
import { z } from "zod";

const int = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * The scripts service's settings, read from JUNCTION_SCRIPTS_* (e.g. JUNCTION_SCRIPTS_TIMEOUT_MS).
 * Run limits are per run; see scripts-runtime/README.md, "Sandbox and limits".
 */
export const scriptsConfigSchema = z.object({
  /** Sandbox processes kept warm (started on the first script validated or run). */
  poolSize: int(2, 1, 64),
  /** Wall-clock deadline of one run. */
  timeoutMs: int(60_000, 1000, 3_600_000),
  /** Heap cap of one run, in MiB. */
  memoryMb: int(64, 32, 2048),
  /** Log bytes kept per run. */
  maxLogBytes: int(256 * 1024, 1024, 64 * 1024 * 1024),
  /** Jobs of the `scripts.runs` queue run at once; onWebhook runs take all but one (when there are two or more). */
  jobConcurrency: int(4, 1, 256),
  /** Tries of a lifecycle or onWebhook run that failed because a service was unavailable. */
  maxAttempts: int(5, 1, 100),
  /** First retry delay after such a failure; doubled on each try. */
  retryBaseMs: int(1000, 10, 3_600_000),
  /** Upper bound of one retry delay. */
  retryMaxMs: int(300_000, 10, 86_400_000),
  /** How often (service clock) the scheduler looks for due syncs besides the times it knows of. */
  schedulerPollMs: int(30_000, 100, 3_600_000),
  /** Due syncs claimed per scheduler pass. */
  schedulerBatch: int(100, 1, 10_000),
  /** How long a run's lease outlives its deadline, in case the process holding it dies. */
  leaseMarginMs: int(60_000, 0, 3_600_000),
  /** Sandbox processes beyond poolSize kept for lifecycle hooks and actions (syncs never use them). */
  reservedProcesses: int(1, 0, 16),
  /** Sync and onWebhook runs of one integration at once (the rest wait; lifecycle hooks and actions are not held). */
  maxRunsPerIntegration: int(1, 1, 64),
  /** Sync and onWebhook runs of one script at once, across its connections. */
  maxRunsPerScript: int(1, 1, 64),
  /** How long a run may wait for a sandbox process before it fails (QueueTimeoutError). */
  queueTimeoutMs: int(300_000, 1000, 86_400_000),
  /** Script API calls of one run served at once; the others wait in line (64 may be in flight). */
  hostCallConcurrency: int(4, 1, 64),
  /** Bytes of script API call arguments one run may have waiting or being served, in MiB. */
  hostCallBytesMb: int(16, 1, 1024),
  /** onWebhook runs of one script (all its connections) per webhookWindowMs before it is paused. */
  webhookRunsPerWindow: int(120, 1, 1_000_000),
  /** The window of webhookRunsPerWindow (service clock). */
  webhookWindowMs: int(60_000, 1000, 86_400_000),
  /** How long a paused script's notifications start no onWebhook run (they are dropped, recorded once). */
  webhookPauseMs: int(600_000, 1000, 86_400_000),
  /** How long "this integration has no webhook subscriptions" is remembered by the notification sink. */
  subscriptionCacheMs: int(1000, 0, 60_000),
  /** Records one sync run may save, update or delete (batchSave, batchUpdate, batchDelete). */
  maxRecordsPerRun: int(5_000_000, 1, 1_000_000_000),
  /** Change feeds (GET /records/changes) open at once per environment in one scripts process. */
  recordFeedsMax: int(100, 1, 100_000),
  /** Time between a change feed's heartbeats (service clock). */
  recordFeedHeartbeatMs: int(15_000, 100, 3_600_000),
  /** How often a change feed reads the store for writes of other processes (its own wake it at once). */
  recordFeedPollMs: int(1000, 10, 600_000),
  /** How often (service clock) the integrations' records retention rules are applied. */
  recordRetentionSweepMs: int(3_600_000, 1000, 86_400_000),
  /** Send the `sync` webhook after every successful run, also when it changed nothing (Nango: only on changes). */
  syncWebhookAlways: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  /** `nango.getEnvironmentVariables()`: a JSON object of names and values, e.g. {"REGION":"eu"}. */
  environmentVariables: z
    .string()
    .default("{}")
    .transform((text, ctx) => {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          const entries = Object.entries(parsed as Record<string, unknown>);
          if (entries.every(([, v]) => typeof v === "string")) {
            return entries.map(([name, value]) => ({ name, value: value as string }));
          }
        }
      } catch {}
      ctx.addIssue({ code: "custom", message: 'must be a JSON object of strings, e.g. {"REGION":"eu"}' });
      return z.NEVER;
    }),
});

export type ScriptsConfig = z.infer<typeof scriptsConfigSchema>;

/** Loads the settings from the environment; fails fast naming the variable that is wrong. */
export function loadScriptsConfig(env: Record<string, string | undefined> = process.env): ScriptsConfig {
  return loadConfig(scriptsConfigSchema, { prefix: "JUNCTION_SCRIPTS_", env });
}

/** The defaults, for callers that configure nothing. */
export const DEFAULT_SCRIPTS_CONFIG: ScriptsConfig = scriptsConfigSchema.parse({});
