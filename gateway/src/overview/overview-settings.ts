import { loadConfig } from "@junction/platform";
import { z } from "zod";
import { DEFAULT_SAMPLE_INTERVAL_MS } from "./overview-sampler.ts";

const schema = z.object({
  // At least a second (the sampler reads every process each time); at most a minute bucket.
  overviewSampleMs: z.coerce.number().int().min(1000).max(60_000).default(DEFAULT_SAMPLE_INTERVAL_MS),
});

/** JUNCTION_OVERVIEW_SAMPLE_MS: how often the overview's sampler reads the processes' counters. */
export function loadOverviewSettings(env: Record<string, string | undefined> = process.env): { sampleMs: number } {
  return { sampleMs: loadConfig(schema, { prefix: "JUNCTION_", env }).overviewSampleMs };
}
