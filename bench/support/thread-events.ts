/**
 * What a proxy's threads ask of the kernel per request (not a benchmark: counts, which the machine's load
 * moves far less than CPU time): system calls (all, and madvise/munmap/futex/epoll apart), page faults and
 * context switches, by thread name, from `perf stat --per-thread` over one wrk window after a warm-up.
 *   bun bench/support/thread-events.ts <bare|floor|embedded|a breakdown mode> [seconds] [concurrency] [rounds]
 * THREAD_CPU_ENV='{"MIMALLOC_SCAVENGER":"0"}': settings of the target process (as thread-cpu.ts). Needs perf
 * with the syscalls tracepoints (root).
 */
import { spawn } from "bun";
import { chooseLoadGenerator } from "./load-generator.ts";
import { proxyHeaders, startNamedTarget, startUpstream } from "./topologies.ts";

const [which = "embedded", secondsArg, concurrencyArg, roundsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 64);
const rounds = Number(roundsArg ?? 2);
const pinning = { server: ["taskset", "-c", "0"], load: ["taskset", "-c", "1"], description: "" };
const load = chooseLoadGenerator(pinning, () => {});
const EVENTS = [
  "raw_syscalls:sys_enter",
  "syscalls:sys_enter_madvise",
  "syscalls:sys_enter_munmap",
  "syscalls:sys_enter_futex",
  "syscalls:sys_enter_epoll_wait",
  "page-faults",
  "context-switches",
];
const SHORT = ["syscalls", "madvise", "munmap", "futex", "epoll", "faults", "switches"];

const upstream = await startUpstream(pinning);
const target = await startNamedTarget(which, pinning, upstream.url);
try {
  const url = `${target.url}/proxy/small`;
  await load.run(url, concurrency, 8, proxyHeaders);
  const pid = target.pids[0] as number;
  for (let round = 0; round < rounds; round++) {
    const perf = spawn(["perf", "stat", "--per-thread", "-x", ";", "-e", EVENTS.join(","), "-p", String(pid)], {
      stderr: "pipe",
      stdout: "ignore",
    });
    const r = await load.run(url, concurrency, seconds, proxyHeaders);
    perf.kill("SIGINT");
    const text = await new Response(perf.stderr).text();
    // "<comm>-<tid>;<count>;;<event>;..." per thread and event, folded by thread name.
    const byThread = new Map<string, number[]>();
    for (const line of text.split("\n")) {
      const [thread, count, , event] = line.split(";");
      const at = EVENTS.indexOf(event ?? "");
      if (thread === undefined || at < 0 || !/^\d+$/.test(count ?? "")) continue;
      const name = thread.trim().replace(/-\d+$/, "").replace(/\d+$/, "#");
      const row = byThread.get(name) ?? EVENTS.map(() => 0);
      row[at] = (row[at] ?? 0) + Number(count);
      byThread.set(name, row);
    }
    process.stdout.write(
      `${which} c=${concurrency}: ${r.rps.toFixed(0)} req/s, ${r.requests} requests; per request:\n`,
    );
    for (const [name, row] of [...byThread].sort((a, b) => (b[1][0] ?? 0) - (a[1][0] ?? 0))) {
      if ((row[0] ?? 0) + (row[5] ?? 0) < r.requests / 100) continue;
      const cells = row.map((n, i) => `${SHORT[i]} ${(n / r.requests).toFixed(3)}`).join(", ");
      process.stdout.write(`  ${name.padEnd(14)} ${cells}\n`);
    }
  }
} finally {
  await target.stop();
  await upstream.stop();
}
