import { type Subprocess, spawn } from "bun";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export { freePort } from "@junction/platform/testing/free-port";

export const ROOT = join(import.meta.dir, "..", "..");

/** CPU pinning: servers on core 0, the load generator on core 1, when there are two cores and taskset. */
export interface Pinning {
  server: string[];
  load: string[];
  description: string;
}

export function choosePinning(): Pinning {
  const cores = navigator.hardwareConcurrency;
  const taskset = Bun.which("taskset");
  if (cores >= 2 && taskset) {
    return {
      server: [taskset, "-c", "0"],
      load: [taskset, "-c", "1"],
      description: `servers pinned to core 0, load generator to core 1 (of ${cores})`,
    };
  }
  return {
    server: [],
    load: [],
    description: `no pinning (${cores} core(s), taskset ${taskset ? "found" : "missing"})`,
  };
}

/** A process of the benchmark; its output is kept for error messages. */
export interface BenchProcess {
  name: string;
  proc: Subprocess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `cmd` with `env`, keeping stdout/stderr (unless `quiet`, for request logs). */
export function startProcess(
  name: string,
  cmd: string[],
  env: Record<string, string>,
  options: { quiet?: boolean } = {},
): BenchProcess {
  let out = "";
  const proc = spawn(cmd, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: options.quiet ? "ignore" : "pipe",
    stderr: "pipe",
  });
  const drain = async (stream: unknown) => {
    if (!(stream instanceof ReadableStream)) return;
    const decoder = new TextDecoder();
    const reader = (stream as ReadableStream<Uint8Array>).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      out = (out + decoder.decode(next.value)).slice(-20_000);
    }
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  return {
    name,
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until `url` answers 2xx, or fails naming the processes' output. */
export async function waitHealthy(url: string, procs: BenchProcess[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    const dead = procs.find((p) => p.proc.exitCode !== null);
    if (dead || Date.now() > deadline) {
      const why = dead ? `${dead.name} exited` : `timed out waiting for ${url}`;
      throw new Error(`${why}\n${procs.map((p) => `--- ${p.name}\n${p.output()}`).join("\n")}`);
    }
    await Bun.sleep(50);
  }
}

/** Resident memory of processes (VmRSS), in bytes; 0 for one that is gone. */
export function residentBytes(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // Exited.
    }
  }
  return total;
}

/** CPU time (user + system) used so far by processes, in milliseconds; from /proc/{pid}/stat. */
export function cpuMillis(pids: number[]): number {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux.
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      // Exited.
    }
  }
  return total;
}

/** CPU ms used so far by each thread name of `pid` (digits at a name's end folded: JITWorker#, HeapHelper#). */
export function threadMillis(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "#");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // The thread ended.
    }
  }
  return byName;
}
