import { invalidArgument } from "@junction/platform";
import type { RunLimits } from "./run-types.ts";

const MiB = 1024 * 1024;

/** Limits of a run when neither the runtime nor the run says otherwise (spec: Limits). */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  memoryBytes: 64 * MiB,
  timeoutMs: 60_000,
  maxLogBytes: 256 * 1024,
};

/**
 * Bounds of each limit. The memory floor comes from the QuickJS build, which starts with 16 MiB;
 * the ceiling is what a 32-bit WebAssembly memory of this build can address.
 */
export const RUN_LIMIT_BOUNDS: Record<keyof RunLimits, [number, number]> = {
  memoryBytes: [32 * MiB, 2048 * MiB],
  timeoutMs: [50, 24 * 3600 * 1000],
  maxLogBytes: [1024, 64 * MiB],
};

/** The limits of a run: the run's own over the runtime's defaults, each checked against its bounds. */
export function resolveLimits(defaults: RunLimits, given: Partial<RunLimits> = {}): RunLimits {
  const limits = { ...defaults };
  for (const key of Object.keys(RUN_LIMIT_BOUNDS) as (keyof RunLimits)[]) {
    const value = given[key] ?? defaults[key];
    const [min, max] = RUN_LIMIT_BOUNDS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw invalidArgument("invalid_script_limits", `${key} must be a whole number from ${min} to ${max}`, [
        { path: `limits.${key}`, message: `expected ${min}..${max}, got ${value}` },
      ]);
    }
    limits[key] = value;
  }
  return limits;
}
