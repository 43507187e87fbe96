import { flagSetting, loadConfig } from "@junction/platform";
import { z } from "zod";

const HOUR_MS = 3_600_000;

/** The operations log's retention, read from JUNCTION_LOGS_* by the logs service. */
export const logsConfigSchema = z.object({
  /** Operations older than this are removed (hours; at most ten years). */
  retentionHours: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3653)
    .default(24 * 7),
  /** Past this many operations the oldest are removed (a flood stays inside it). */
  maxOperations: z.coerce.number().int().min(100).max(1_000_000_000).default(1_000_000),
  /**
   * Embedded with SQLite: the log's writes on a thread of their own (off: on the main thread, into the same
   * file; for measuring what the thread saves).
   */
  writerThread: flagSetting.default(true),
  /** How often retention runs, besides after each batch that takes the log past its count. */
  pruneIntervalMs: z.coerce.number().int().min(1_000).max(HOUR_MS).default(60_000),
});

export type LogsConfig = z.infer<typeof logsConfigSchema>;

export function loadLogsConfig(env: Record<string, string | undefined> = process.env): LogsConfig {
  return loadConfig(logsConfigSchema, { prefix: "JUNCTION_LOGS_", env });
}

export const DEFAULT_LOGS_CONFIG: LogsConfig = logsConfigSchema.parse({});

export function retentionMs(config: LogsConfig): number {
  return config.retentionHours * HOUR_MS;
}
