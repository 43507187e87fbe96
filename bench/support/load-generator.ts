import { spawnSync } from "bun";
import { join } from "node:path";
import { type Pinning, ROOT } from "./processes.ts";

/** One measurement: throughput and latency percentiles. */
export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  /** CPU time of the target's processes per request, filled in by the caller. */
  cpuUsPerRequest?: number;
}

export interface LoadGenerator {
  name: string;
  run(url: string, concurrency: number, seconds: number, headers: Record<string, string>): Promise<LoadResult>;
}

/**
 * wrk when it is installed (or can be: `apt-get install -y wrk` as root), otherwise a Bun fetch loop.
 * Either runs as its own process, pinned away from the servers.
 */
export function chooseLoadGenerator(pinning: Pinning, log: (line: string) => void): LoadGenerator {
  let wrk = Bun.which("wrk");
  if (!wrk && process.getuid?.() === 0 && Bun.which("apt-get") && process.env.BENCH_NO_INSTALL !== "1") {
    log("wrk not found: installing it with apt-get install -y wrk ...");
    const installed = spawnSync(["apt-get", "install", "-y", "wrk"], { stdout: "ignore", stderr: "ignore" });
    wrk = installed.exitCode === 0 ? Bun.which("wrk") : null;
  }
  if (!wrk) {
    log("wrk unavailable: using the Bun fetch load generator (bench/support/bun-load.ts); absolute figures are lower");
    return {
      name: "bun-load (fallback)",
      run: (...a) =>
        run([
          ...pinning.load,
          "bun",
          join(ROOT, "bench/support/bun-load.ts"),
          a[0],
          String(a[1]),
          String(a[2]),
          JSON.stringify(a[3]),
        ]),
    };
  }
  const script = join(ROOT, "bench/support/wrk-report.lua");
  return {
    name: "wrk",
    run: (url, concurrency, seconds, headers) =>
      run([
        ...pinning.load,
        wrk as string,
        "-t1",
        `-c${concurrency}`,
        `-d${seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
        url,
      ]),
  };
}

async function run(cmd: string[]): Promise<LoadResult> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const line = out.split("\n").find((l) => l.startsWith("{"));
  if (!line) throw new Error(`load generator failed (${cmd.join(" ")}):\n${out}\n${err}`);
  const r = JSON.parse(line) as { requests: number; durationUs: number; errors: number; p50Us: number; p99Us: number };
  return {
    rps: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    requests: r.requests,
    errors: r.errors,
  };
}
