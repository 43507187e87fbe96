import { describe, expect, test } from "bun:test";
import { MetricsRegistry } from "@junction/platform";
import { scriptMetrics } from "./script-metrics.ts";

describe("script metrics", () => {
  test("count each run's end by kind and outcome, its duration, and a kill for a deadline, memory or crash", async () => {
    const registry = new MetricsRegistry();
    const m = scriptMetrics(registry);
    m.observe("sync", "succeeded", 120);
    m.observe("action", "timed_out", 30_000);
    m.observe("action", "memory_exceeded", 50);
    m.observe("action", "failed", 10);
    const text = await registry.render();
    expect(text).toContain('junction_script_runs_total{kind="sync",outcome="succeeded"} 1');
    expect(text).toContain('junction_script_runs_total{kind="action",outcome="timed_out"} 1');
    expect(text).toContain('junction_script_run_seconds_count{kind="action"} 3');
    expect(text).toContain('junction_script_run_seconds_bucket{kind="sync",le="0.25"} 1');
    expect(text).toContain('junction_script_sandbox_kills_total{reason="timed_out"} 1');
    expect(text).toContain('junction_script_sandbox_kills_total{reason="memory_exceeded"} 1');
    expect(text).not.toContain('reason="failed"');
  });

  test("count sync runs stopped before their exec returned, by status", async () => {
    const registry = new MetricsRegistry();
    const m = scriptMetrics(registry);
    m.observe("sync", "timed_out", 60_000);
    m.observe("sync", "interrupted", 5_000);
    m.observe("sync", "interrupted", 7_000);
    m.observe("sync", "failed", 10);
    m.observe("action", "crashed", 10);
    const text = await registry.render();
    expect(text).toContain('junction_sync_runs_stopped_total{status="timed_out"} 1');
    expect(text).toContain('junction_sync_runs_stopped_total{status="interrupted"} 2');
    expect(text).toContain('junction_script_runs_total{kind="sync",outcome="interrupted"} 2');
    expect(text).not.toContain('junction_sync_runs_stopped_total{status="failed"}');
    expect(text).not.toContain('junction_sync_runs_stopped_total{status="crashed"}');
  });
});
