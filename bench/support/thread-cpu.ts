/**
 * CPU per request of a proxy's threads, by thread name (not a benchmark: one target at a time, alternated):
 *   bun bench/support/thread-cpu.ts <bare|floor|embedded|compared|a breakdown mode> [seconds] [concurrency] [rounds] [compare root]
 * starts the local upstream and the target, warms it up, then runs wrk `rounds` times and prints, per round,
 * the µs of CPU per request of each of the target's threads (from /proc/<pid>/task/<tid>/stat): the main
 * thread (the server, the handlers, fetch's JavaScript side), Bun's HTTP client thread, the collector's
 * helper threads, the JIT's; and the process's resident memory after each round. On a shared machine the split says more than the total: a thread's share moves
 * less with other processes' load than wall time does.
 */
import { chooseLoadGenerator } from "./load-generator.ts";
import { residentBytes, threadMillis } from "./processes.ts";
import { proxyHeaders, startNamedTarget, startUpstream } from "./topologies.ts";

const [which = "embedded", secondsArg, concurrencyArg, roundsArg, compareRoot] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 16);
const rounds = Number(roundsArg ?? 3);
// Raised priority (as root: nice -15) keeps other work on a shared machine from taking the servers' core.
const nice = process.getuid?.() === 0 ? ["nice", "-n", "-15"] : [];
const pinning = {
  server: [...nice, "taskset", "-c", "0"],
  load: [...nice, "taskset", "-c", "1"],
  description: "",
};
const load = chooseLoadGenerator(pinning, () => {});

const upstream = await startUpstream(pinning);
const target = await startNamedTarget(which, pinning, upstream.url, compareRoot);
try {
  const url = `${target.url}/proxy/small`;
  // Long enough for the JIT to settle: Junction's code tiers up over the first ~20 000 requests.
  await load.run(url, concurrency, 8, proxyHeaders);
  const pid = target.pids[0] as number;
  for (let round = 0; round < rounds; round++) {
    const before = threadMillis(pid);
    const r = await load.run(url, concurrency, seconds, proxyHeaders);
    const after = threadMillis(pid);
    const parts = [...after]
      .map(([name, ms]) => [name, ((ms - (before.get(name) ?? 0)) * 1000) / r.requests] as const)
      .filter(([, us]) => us >= 0.5)
      .sort((a, b) => b[1] - a[1]);
    const total = parts.reduce((s, [, us]) => s + us, 0);
    const split = parts.map(([n, us]) => `${n} ${us.toFixed(1)}`).join(", ");
    const rss = (residentBytes([pid]) / 2 ** 20).toFixed(1);
    process.stdout.write(
      `${which} c=${concurrency}: ${r.rps.toFixed(0)} req/s, ${total.toFixed(1)} µs/req (${split}), RSS ${rss} MiB\n`,
    );
  }
} finally {
  await target.stop();
  await upstream.stop();
}
