import { MetricsRegistry } from "@junction/platform";
import type { EndedRunStatus } from "../store/records.ts";

/** Ends of a run for which the sandbox process was killed (its deadline, its memory, its crash). */
const KILLED: ReadonlySet<EndedRunStatus> = new Set(["timed_out", "memory_exceeded", "crashed"]);
/** Ends of a sync run stopped from outside before its exec returned: the next run resumes it. */
const STOPPED: ReadonlySet<EndedRunStatus> = new Set([...KILLED, "interrupted"]);

/** What the script runner counts: each run's end by kind and outcome, its duration, sandbox kills. */
export interface ScriptMetrics {
  observe(kind: string, status: EndedRunStatus, durationMs: number): void;
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
  const stopped = r.counter(
    "junction_sync_runs_stopped_total",
    "Sync runs stopped before their exec returned, by status (timed_out, memory_exceeded, crashed, interrupted).",
    ["status"],
  );
  return {
    observe(kind, status, durationMs) {
      runs.inc(kind, status);
      seconds.observe(durationMs / 1000, kind);
      if (KILLED.has(status)) kills.inc(status);
      if (kind === "sync" && STOPPED.has(status)) stopped.inc(status);
    },
  };
}

/** Whether a sync run that ended so was stopped from outside (and is to be resumed). */
export const stoppedFromOutside = (status: EndedRunStatus) => STOPPED.has(status);
