/**
 * The scripts runtime's per-run overhead, against the same function called directly in this process.
 *
 *   bun run bench:scripts          (or: bun bench/scripts.bench.ts)
 *
 * - cold: a new runtime of one process (spawn, QuickJS compiled, ready), then one run, then close;
 * - warm: runs one after the other on a warm process, a trivial script and one with a script API call;
 * - throughput: runs per second on a pool of 2 (and 4) processes with 4× as many runs in flight;
 * - baseline: the script's function called directly in the host process, no sandbox;
 * - fairness: a canary's latency while two syncs loop, against the same canary on an idle pool
 *   (support/scripts-fairness.ts).
 * Medians of interleaved rounds. Environment: BENCH_ROUNDS (3), BENCH_COLD (10), BENCH_WARM (300),
 * BENCH_THROUGHPUT (1000), BENCH_POOLS (2,4), BENCH_CANARIES (20; 0 skips fairness), BENCH_LOOP_DEADLINE_MS (10000).
 */
import { loadavg } from "node:os";
import { type RunResult, ScriptRuntime } from "../scripts-runtime/src/index.ts";
import { RecordingHost } from "../scripts-runtime/testing/recording-host.ts";
import { median, table } from "./support/report.ts";
import { measureFairness } from "./support/scripts-fairness.ts";

const env = process.env;
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const COLD = Number(env.BENCH_COLD ?? 10);
const WARM = Number(env.BENCH_WARM ?? 300);
const THROUGHPUT = Number(env.BENCH_THROUGHPUT ?? 1000);
const POOLS = (env.BENCH_POOLS ?? "2,4").split(",").map(Number);
const CANARIES = Number(env.BENCH_CANARIES ?? 20);
const LOOP_DEADLINE_MS = Number(env.BENCH_LOOP_DEADLINE_MS ?? 10_000);

const TRIVIAL = `export default createSync({ frequency: "1d", exec: async (nango) => 1 + 1 });`;
const ONE_CALL = `export default createSync({ frequency: "1d", exec: async (nango) => (await nango.getMetadata()).n + 1 });`;
const log = (line: string) => process.stdout.write(`${line}\n`);

log("# Scripts runtime benchmark");
log(
  `# Bun ${Bun.version}, ${ROUNDS} rounds; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

const host = new RecordingHost();
host.metadata = { n: 41 };
const runtime = await ScriptRuntime.start({ poolSize: 1 });
const compile = async (source: string) => {
  const out = await runtime.compile(source, "bench.ts");
  if (!out.ok) throw new Error(out.error.message);
  return out.compiled;
};
const trivial = await compile(TRIVIAL);
const oneCall = await compile(ONE_CALL);
const check = (r: RunResult) => {
  if (r.status !== "succeeded") throw new Error(`run ${r.status}: ${JSON.stringify(r.error)}`);
};

/** Microseconds per call of `fn`, `n` calls one after the other. */
async function perCall(n: number, fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - started) * 1000) / n;
}

const baselineFn = async (nango: { getMetadata: () => Promise<{ n: number }> }) => 1 + 1 + (nango ? 0 : 1);
const baselineCallFn = async (nango: { getMetadata: () => Promise<{ [k: string]: unknown }> }) =>
  ((await nango.getMetadata()).n as number) + 1;
const fakeNango = { getMetadata: () => host.getMetadata() as Promise<{ n: number }> };

const results: Record<string, number[]> = {};
const add = (key: string, value: number) => {
  results[key] = [...(results[key] ?? []), value];
};

// warm-up
for (let i = 0; i < 50; i++) check(await runtime.run({ script: trivial, entry: "exec", host }));

for (let round = 0; round < ROUNDS; round++) {
  add("baseline", await perCall(100_000, () => baselineFn(fakeNango)));
  add("baseline call", await perCall(100_000, () => baselineCallFn(fakeNango)));
  add("warm", await perCall(WARM, async () => check(await runtime.run({ script: trivial, entry: "exec", host }))));
  add("warm call", await perCall(WARM, async () => check(await runtime.run({ script: oneCall, entry: "exec", host }))));
  add(
    "cold",
    await perCall(COLD, async () => {
      const fresh = await ScriptRuntime.start({ poolSize: 1 });
      check(await fresh.run({ script: trivial, entry: "exec", host }));
      await fresh.close();
    }),
  );
  for (const size of POOLS) {
    const pool = await ScriptRuntime.start({ poolSize: size });
    for (let i = 0; i < 20; i++) check(await pool.run({ script: trivial, entry: "exec", host }));
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next++ < THROUGHPUT) check(await pool.run({ script: trivial, entry: "exec", host }));
    };
    await Promise.all(Array.from({ length: size * 4 }, worker));
    add(`pool ${size}`, THROUGHPUT / ((performance.now() - started) / 1000));
    await pool.close();
  }
  log(`  round ${round + 1} done`);
}
await runtime.close();

const us = (key: string) => median(results[key] ?? []);
const fmt = (microseconds: number) =>
  microseconds >= 1000 ? `${(microseconds / 1000).toFixed(2)} ms` : `${microseconds.toFixed(2)} µs`;
const times = (a: number, b: number) => `${Math.round(a / b).toLocaleString("en")}×`;

log("");
log(
  table(
    ["per run (trivial exec)", "median", "÷ direct call"],
    [
      ["direct call in the host (baseline)", fmt(us("baseline")), "1×"],
      ["warm process (reused)", fmt(us("warm")), times(us("warm"), us("baseline"))],
      ["cold (new process: spawn + QuickJS + run)", fmt(us("cold")), times(us("cold"), us("baseline"))],
      ["direct call with one host call (baseline)", fmt(us("baseline call")), "1×"],
      ["warm, one script API call", fmt(us("warm call")), times(us("warm call"), us("baseline call"))],
    ],
  ),
);
log("");
log(
  table(
    ["throughput (trivial exec)", "runs/s (median)", "÷ direct calls/s"],
    POOLS.map((size) => {
      const rps = us(`pool ${size}`);
      return [`pool of ${size}, ${size * 4} in flight`, rps.toFixed(0), `1/${Math.round(1e6 / us("baseline") / rps)}`];
    }),
  ),
);
if (CANARIES > 0) {
  const rows = await measureFairness(CANARIES, LOOP_DEADLINE_MS);
  const idle = new Map(rows.filter((r) => r.canary.startsWith("idle")).map((r) => [r.pool, r.medianMs]));
  log("");
  log(`# fairness: two syncs of one integration loop (deadline ${LOOP_DEADLINE_MS} ms), pool of 2`);
  log(
    table(
      ["pool", "canary", "median", "worst", "÷ idle median"],
      rows.map((r) => [
        r.pool,
        r.canary,
        `${r.medianMs.toFixed(1)} ms`,
        `${r.maxMs.toFixed(1)} ms`,
        `${(r.medianMs / (idle.get(r.pool) ?? r.medianMs)).toFixed(1)}×`,
      ]),
    ),
  );
}
log(
  `\n# load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
