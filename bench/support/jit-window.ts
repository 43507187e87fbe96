/**
 * What the JIT compiles while a checkout's embedded proxy is under steady load (not a benchmark: one process):
 *   bun bench/support/jit-window.ts <checkout> [warm-up s] [window s] [concurrency] [log file]
 * starts the local upstream and `junction start` of <checkout> with `BUN_JSC_reportCompileTimes=1` (and any
 * other `BUN_JSC_*` of this process's environment, e.g. `BUN_JSC_verboseOSR=1`), warms it up with small proxied
 * GETs, then measures one window: requests, CPU µs per request by thread (/proc/<pid>/task/*), and the JIT's
 * compiles in that window by tier and function (the log's lines written during it). The whole JSC log is kept
 * in [log file] for grepping (a function's hash, its OSR exits). Compile time is CPU the process pays
 * on the JIT's threads, so a function compiled twice shows here and not in a loop without sockets.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chooseLoadGenerator } from "./load-generator.ts";
import { freePort, threadMillis, waitHealthy } from "./processes.ts";
import { addConnection, proxyHeaders, SECRET_KEY, startUpstream } from "./topologies.ts";

const [rootArg = ".", warmArg, windowArg, concurrencyArg, logArg] = process.argv.slice(2);
const root = resolve(rootArg);
const warmup = Number(warmArg ?? 10);
const windowSeconds = Number(windowArg ?? 30);
const concurrency = Number(concurrencyArg ?? 16);
const logFile = logArg ?? join(tmpdir(), `jit-window-${process.pid}.log`);
const nice = process.getuid?.() === 0 ? ["nice", "-n", "-15"] : [];
const pinning = { server: [...nice, "taskset", "-c", "0"], load: [...nice, "taskset", "-c", "1"], description: "" };
const load = chooseLoadGenerator(pinning, () => {});

/** "Optimized <name>#<hash>:[...] using <tier> ... in <ms> ms" lines, summed by tier and by function. */
function compiles(log: string) {
  const byTier = new Map<string, number>();
  const byFunction = new Map<string, { ms: number; times: number }>();
  for (const m of log.matchAll(/Optimized (\S+?):\[.*? using (\S+) with \S+ into (\d+) bytes in ([\d.]+) ms/g)) {
    const [, fn = "", tier = "", bytes = "", ms = ""] = m;
    byTier.set(tier, (byTier.get(tier) ?? 0) + Number(ms));
    if (tier === "Baseline") continue;
    const key = `${fn} ${tier}`;
    const seen = byFunction.get(key) ?? { ms: 0, times: 0 };
    byFunction.set(key, { ms: seen.ms + Number(ms), times: seen.times + 1 });
    void bytes;
  }
  return { byTier, byFunction };
}

const jscEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("BUN_JSC_"))) as Record<
  string,
  string
>;
const upstream = await startUpstream(pinning);
const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), "junction-jit-"));
const fd = openSync(logFile, "w");
const proc = Bun.spawn([...pinning.server, "bun", join(root, "cli/junction.ts"), "start"], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    PORT: String(port),
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_DATA_DIR: dir,
    JUNCTION_SECRET_KEY: SECRET_KEY,
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    BUN_JSC_reportCompileTimes: "1",
    ...jscEnv,
  },
  stdout: "ignore",
  stderr: fd,
});
try {
  const url = `http://127.0.0.1:${port}`;
  const junction = { name: "junction", proc, output: () => "", stop: async () => {} };
  await waitHealthy(`${url}/health`, [junction]);
  await addConnection(url, upstream.url);
  const warm = await load.run(`${url}/proxy/small`, concurrency, warmup, proxyHeaders);
  const from = statSync(logFile).size;
  const before = threadMillis(proc.pid);
  const r = await load.run(`${url}/proxy/small`, concurrency, windowSeconds, proxyHeaders);
  const after = threadMillis(proc.pid);
  const to = statSync(logFile).size;
  const windowLog = readFileSync(logFile).subarray(from, to).toString("utf8");
  const parts = [...after]
    .map(([name, ms]) => [name, ((ms - (before.get(name) ?? 0)) * 1000) / r.requests] as const)
    .filter(([, us]) => us >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((s, [, us]) => s + us, 0);
  const { byTier, byFunction } = compiles(windowLog);
  const tiers = [...byTier].map(([t, ms]) => `${t} ${ms.toFixed(0)} ms`).join(", ");
  const jitMs = [...byTier].reduce((s, [, ms]) => s + ms, 0);
  console.log(
    `${root} c=${concurrency}: warm-up ${warm.requests} requests; window ${r.requests} requests, ${r.rps.toFixed(0)} req/s`,
  );
  console.log(`  CPU ${total.toFixed(1)} µs/req (${parts.map(([n, us]) => `${n} ${us.toFixed(1)}`).join(", ")})`);
  console.log(
    `  JIT in window: ${jitMs.toFixed(0)} ms (${tiers || "none"}), ${((jitMs * 1000) / r.requests).toFixed(2)} µs/req`,
  );
  const whole = compiles(readFileSync(logFile, "utf8"));
  const wholeMs = [...whole.byTier].reduce((s, [tier, ms]) => (tier === "Baseline" ? s : s + ms), 0);
  const [hottest, most] = [...whole.byFunction].sort((a, b) => b[1].ms - a[1].ms)[0] ?? ["none", { ms: 0, times: 0 }];
  console.log(
    `  JIT over the whole run (DFG+FTL): ${wholeMs.toFixed(0)} ms; the largest: ${hottest} ${most.times}× ${most.ms.toFixed(0)} ms`,
  );
  const top = [...byFunction].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12);
  for (const [key, { ms, times }] of top) console.log(`    ${ms.toFixed(1).padStart(7)} ms ${times}× ${key}`);
  console.log(`  log: ${logFile}`);
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  closeSync(fd);
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
}
