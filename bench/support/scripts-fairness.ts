/**
 * The pool's fairness: a canary run's latency while two syncs of one
 * integration loop, against the same canary on an idle pool (the baseline, same run), on the
 * scripts service's defaults (pool 2, 1 reserved process, 1 sync per integration and per script) and
 * on a pool without fairness (no reserved process, no caps: what the runtime did before).
 */
import { type RunRequest, type RunResult, ScriptRuntime } from "../../scripts-runtime/src/index.ts";
import { RecordingHost } from "../../scripts-runtime/testing/recording-host.ts";
import { median } from "./report.ts";

const LOOP = `export default createSync({ frequency: "1d", exec: async () => { for (;;) {} } });`;
const CANARY = `export default createSync({ frequency: "1d", exec: async () => 1 });`;

type Fairness = NonNullable<RunRequest["fairness"]>;
const sync = (integration: string, script: string): Fairness => ({
  priority: false,
  integration,
  script: `${integration}/${script}`,
});

export interface FairnessRow {
  pool: string;
  canary: string;
  medianMs: number;
  maxMs: number;
}

/** Median and worst latency of `count` canaries of each kind, with two loops of integration "a" running. */
export async function measureFairness(count: number, loopDeadlineMs: number): Promise<FairnessRow[]> {
  const host = new RecordingHost();
  const rows: FairnessRow[] = [];
  const pools = [
    {
      name: "fair (service defaults)",
      options: { reservedProcesses: 1, maxRunsPerIntegration: 1, maxRunsPerScript: 1 },
    },
    // Every run without a ticket: one line in order, no caps, no reserve (the pool without its fairness).
    { name: "no fairness (before)", options: { reservedProcesses: 0, maxRunsPerIntegration: 2, maxRunsPerScript: 2 } },
  ];
  const canaries: [string, Fairness][] = [
    ["another integration's sync", sync("b", "canary")],
    ["a lifecycle hook of the looping integration", { priority: true, integration: "a", script: "a/hook" }],
  ];
  for (const pool of pools) {
    const runtime = await ScriptRuntime.start({ poolSize: 2, limits: { timeoutMs: loopDeadlineMs }, ...pool.options });
    const fair = pool.options.reservedProcesses > 0;
    const run = (source: string, fairness: Fairness, signal?: AbortSignal): Promise<RunResult> =>
      runtime.run({
        script: { source, filename: "fair.ts" },
        entry: "exec",
        host,
        ...(fair ? { fairness } : {}),
        ...(signal ? { signal } : {}),
      });
    const timed = async (fairness: Fairness) => {
      const began = performance.now();
      const result = await run(CANARY, fairness);
      if (result.status !== "succeeded") throw new Error(`canary ${result.status}`);
      return performance.now() - began;
    };
    const idle: number[] = [];
    for (let i = 0; i < count; i++) idle.push(await timed(sync("b", "canary")));
    rows.push({ pool: pool.name, canary: "idle pool (baseline)", medianMs: median(idle), maxMs: Math.max(...idle) });
    for (const [name, fairness] of canaries) {
      const stop = new AbortController();
      const loops = [run(LOOP, sync("a", "loop-1"), stop.signal), run(LOOP, sync("a", "loop-2"), stop.signal)];
      // The fair pool runs one of the two (one per integration); the other runs both.
      await looping(runtime, fair ? 1 : 2);
      const took: number[] = [];
      // Without fairness the loops hold both processes: one canary shows it (it waits for the deadline).
      const tries = fair ? count : 1;
      for (let i = 0; i < tries; i++) took.push(await timed(fairness));
      stop.abort("bench");
      await Promise.all(loops);
      rows.push({ pool: pool.name, canary: name, medianMs: median(took), maxMs: Math.max(...took) });
    }
    await runtime.close();
  }
  return rows;
}

/** Resolves once `count` processes of the pool are busy (the loops have started). */
export async function looping(runtime: ScriptRuntime, count: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (runtime.processes().filter((p) => !p.idle).length < count) {
    if (performance.now() > deadline) throw new Error(`${count} processes never became busy`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
