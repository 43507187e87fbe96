import { loadConfig } from "@junction/platform";
import { z } from "zod";

/** The channel service's settings, read from JUNCTION_CHANNEL_* (e.g. JUNCTION_CHANNEL_SWEEP_INTERVAL_MS). */
export const channelConfigSchema = z.object({
  /** Time between expiry sweeps (expired channels written, expiring ones warned about). */
  sweepIntervalMs: z.coerce
    .number()
    .int()
    .min(1000)
    .max(86_400_000)
    .default(15 * 60_000),
  /** Deadline of one upstream stop call (rollback, deleted connections) and of a managed channel's calls. */
  stopTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /**
   * Longest time between two looks at the managed channels' schedule (each due renewal sets its own
   * timer; this picks up what other processes scheduled).
   */
  managedPollIntervalMs: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(5 * 60_000),
});

export type ChannelConfig = z.infer<typeof channelConfigSchema>;

/** Loads the settings from the environment; fails fast naming the variable that is wrong. */
export function loadChannelConfig(env: Record<string, string | undefined> = process.env): ChannelConfig {
  return loadConfig(channelConfigSchema, { prefix: "JUNCTION_CHANNEL_", env });
}
