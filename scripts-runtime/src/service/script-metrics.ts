import { MetricsRegistry } from "@junction/platform";
import type { RunStatus } from "../runtime/run-types.ts";

/** Ends of a run for which the sandbox process was killed (its deadline, its memory, its crash). */
const KILLED: ReadonlySet<RunStatus> = new Set(["timed_out", "memory_exceeded", "crashed"]);

/** What the script runner counts: each run's end by kind and outcome, its duration, sandbox kills. */
export interface ScriptMetrics {
  observe(kind: string, status: RunStatus, durationMs: number): void;
}

export function scriptMetrics(registry: MetricsRegistry | undefined): ScriptMetrics {
  const r = registry ?? new MetricsRegistry();
  const runs = r.counter("junction_script_runs_total", "Script runs ended, by kind and outcome.", ["kind", "outcome"]);
  const seconds = r.histogram("junction_script_run_seconds", "Script run durations, by kind.", ["kind"]);
  const kills = r.counter(
    "junction_script_sandbox_kills_total",
    "Sandbox processes killed under a run, by reason (timed_out, memory_exceeded, crashed).",
    ["reason"],
  );
  return {
    observe(kind, status, durationMs) {
      runs.inc(kind, status);
      seconds.observe(durationMs / 1000, kind);
      if (KILLED.has(status)) kills.inc(status);
    },
  };
}
