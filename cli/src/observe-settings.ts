import { loadConfig } from "@junction/platform";
import { z } from "zod";

/** Settings of /metrics (JUNCTION_METRICS_TOKEN): read through one schema, a bad value names the variable. */
export const observeSettingsSchema = z.object({
  /**
   * The Bearer token a scraper sends to GET /metrics (never a secret key: a scraper must not hold one).
   * Unset: /metrics answers 404. At least 16 characters.
   */
  metricsToken: z.string().trim().min(16, "at least 16 characters").optional(),
});

export type ObserveSettings = z.infer<typeof observeSettingsSchema>;

export function loadObserveSettings(env: Record<string, string | undefined>): ObserveSettings {
  return loadConfig(observeSettingsSchema, { prefix: "JUNCTION_", env });
}
