/**
 * CPU per request by thread, several targets interleaved (not a benchmark): every target is started and warmed,
 * then each round runs wrk against each target in turn, so the machine's load falls alike on all of them.
 *   bun bench/support/thread-ab.ts <seconds> <concurrency> <rounds> <target>...
 * A target: bare, floor, embedded (this checkout's `junction start`), compared=<checkout> (another
 * checkout's), a breakdown mode (breakdown-server.ts), or script=<path> (a server run as the floor is:
 * <port> <upstream> <secret key> <integration> <connection>). THREAD_CPU_ENV='{"JUNCTION_LOGS_RECORD":"false"}'
 * gives the embedded targets settings; `embedded+{"K":"V"}` gives one target its own (a breakdown mode's or a
 * script's environment too: `gateway-parts+{"BREAKDOWN_PARTS":"log"}`).
 * Per round and target: req/s, the main thread's and Bun's HTTP client thread's µs per request, and their
 * ratio (the client thread does the same fetch I/O in every proxy: the ratio moves less with load than the
 * totals); at the end, per target, the medians; with THREAD_AB_THREADS=1 also every thread's median ÷ the
 * client thread's (mimalloc's scavenger, JSC's warm-up and JIT threads, the collector's helpers).
 */
import { chooseLoadGenerator } from "./load-generator.ts";
import { freePort, startProcess, threadMillis } from "./processes.ts";
import {
  CONNECTION,
  INTEGRATION,
  proxyHeaders,
  SECRET_KEY,
  startEmbedded,
  startNamedTarget,
  startUpstream,
  type Target,
} from "./topologies.ts";

const [secondsArg, concurrencyArg, roundsArg, ...names] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 64);
const rounds = Number(roundsArg ?? 5);
const nice = process.getuid?.() === 0 ? ["nice", "-n", "-15"] : [];
const pinning = { server: [...nice, "taskset", "-c", "0"], load: [...nice, "taskset", "-c", "1"], description: "" };
const load = chooseLoadGenerator(pinning, () => {});
const baseEnv = JSON.parse(process.env.THREAD_CPU_ENV ?? "{}") as Record<string, string>;

async function start(name: string, upstream: string): Promise<Target> {
  const plus = name.indexOf("+{");
  const env = plus < 0 ? baseEnv : { ...baseEnv, ...(JSON.parse(name.slice(plus + 1)) as Record<string, string>) };
  const bare = plus < 0 ? name : name.slice(0, plus);
  if (bare === "embedded") return startEmbedded(pinning, upstream, { env, name });
  if (bare.startsWith("compared=")) return startEmbedded(pinning, upstream, { root: bare.slice(9), env, name });
  if (bare.startsWith("script=")) {
    const port = await freePort();
    const args = [String(port), upstream, SECRET_KEY, INTEGRATION, CONNECTION];
    const p = startProcess(name, [...pinning.server, "bun", bare.slice(7), ...args], env);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        await fetch(url);
        break;
      } catch {
        if (i > 300) throw new Error(`${name} did not start: ${p.output()}`);
        await Bun.sleep(50);
      }
    }
    return { name, url, pids: [p.proc.pid], stop: p.stop };
  }
  return startNamedTarget(bare, pinning, upstream, undefined, env);
}

const upstream = await startUpstream(pinning);
const targets: Target[] = [];
const rows = new Map<string, { rps: number; main: number; client: number; total: number }[]>();
// Every thread's µs per request ÷ the client thread's, per target and round (THREAD_AB_THREADS=1 prints them).
const byThread = new Map<string, Map<string, number[]>>();
try {
  for (const name of names) {
    const target = await start(name, upstream.url);
    targets.push(target);
    rows.set(name, []);
    await load.run(`${target.url}/proxy/small`, concurrency, 8, proxyHeaders);
  }
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const name = names[i] as string;
      const pid = target.pids[0] as number;
      const before = threadMillis(pid);
      const r = await load.run(`${target.url}/proxy/small`, concurrency, seconds, proxyHeaders);
      const after = threadMillis(pid);
      const per = (thread: string) => ((after.get(thread) ?? 0) - (before.get(thread) ?? 0)) * (1000 / r.requests);
      let total = 0;
      for (const thread of after.keys()) total += per(thread);
      const main = [...after.keys()].filter((t) => t === "bun" || t === "bun.exe").reduce((s, t) => s + per(t), 0);
      const client = per("HTTP Client");
      rows.get(name)?.push({ rps: r.rps, main, client, total });
      const threads = byThread.get(name) ?? new Map<string, number[]>();
      byThread.set(name, threads);
      for (const thread of after.keys()) threads.set(thread, [...(threads.get(thread) ?? []), per(thread) / client]);
      process.stdout.write(
        `round ${round + 1} ${name}: ${r.rps.toFixed(0)} req/s, main ${main.toFixed(1)}, client ${client.toFixed(1)}, total ${total.toFixed(1)} µs/req, main÷client ${(main / client).toFixed(2)}, total÷client ${(total / client).toFixed(2)}\n`,
      );
    }
  }
} finally {
  for (const target of targets) await target.stop();
  await upstream.stop();
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
for (const [name, rs] of rows) {
  process.stdout.write(
    `${name}: medians ${median(rs.map((r) => r.rps)).toFixed(0)} req/s, main÷client ${median(rs.map((r) => r.main / r.client)).toFixed(2)} (${rs.map((r) => (r.main / r.client).toFixed(2)).join(" ")}), total÷client ${median(rs.map((r) => r.total / r.client)).toFixed(2)}, total ${median(rs.map((r) => r.total)).toFixed(1)} µs\n`,
  );
}
if (process.env.THREAD_AB_THREADS === "1") {
  for (const [name, threads] of byThread) {
    const shown = [...threads]
      .map(([thread, xs]) => [thread, median(xs)] as const)
      .filter(([, m]) => m >= 0.005)
      .sort((a, b) => b[1] - a[1]);
    process.stdout.write(
      `${name} by thread (÷ client, medians): ${shown.map(([t, m]) => `${t} ${m.toFixed(2)}`).join(", ")}\n`,
    );
  }
}
