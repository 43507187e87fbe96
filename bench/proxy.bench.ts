/**
 * Junction's /proxy against a bare Bun passthrough proxy to the same local upstream, in the same run.
 *
 *   bun run bench:proxy          (or: bun bench/proxy.bench.ts)
 *
 * For a small JSON GET and a 100 KB GET, at concurrency 1, 16 and 64, in the embedded and distributed
 * topologies: the median of interleaved rounds (the order rotates each round) of req/s, p50 and p99,
 * and the ratios to the bare proxy. Junction runs as in production: secret-key auth, every path and
 * header check, the resolve cache with the refresh rule, request logs at the default level.
 * Environment: BENCH_ROUNDS (3), BENCH_SECONDS (3), BENCH_WARMUP_SECONDS (1), BENCH_CONCURRENCY
 * (1,16,64), BENCH_TOPOLOGIES (embedded,distributed), BENCH_PAYLOADS (small,100k; also 16k), BENCH_NO_INSTALL=1
 * (never apt-get wrk), BENCH_BREAKDOWN=1 (also measure Junction without parts of its request pipeline, to
 * show where the CPU goes: bench/support/breakdown-server.ts; and the floor in a process that loaded only the
 * architecture's libraries, floor-libraries), BENCH_COMPARE_ROOT=<checkout> (also the embedded
 * topology of another checkout, e.g. the code before a change, in the same rounds: "compared"), BENCH_COMPARE_ENV=K=V,...
 * (environment for that one only: BENCH_COMPARE_ROOT=. BENCH_COMPARE_ENV=JUNCTION_LOGS_RECORD=false),
 * BENCH_EMBEDDED_ENV=K=V,... (environment for the embedded target: with BENCH_COMPARE_ENV, a pair's roles swapped), BENCH_FLOOR=0
 * (leave out the floor: the smallest proxy doing the per-request checks, in its own process,
 * bench/support/minimal-checked-proxy.ts; what any proxy that checks what Junction must check costs at least).
 */
import { loadavg } from "node:os";
import { chooseLoadGenerator, type LoadResult } from "./support/load-generator.ts";
import { choosePinning, cpuMillis, residentBytes } from "./support/processes.ts";
import { envList, median, ratio, table } from "./support/report.ts";
import {
  proxyHeaders,
  startBareProxy,
  startBreakdown,
  startDistributed,
  startEmbedded,
  startFloor,
  startUpstream,
  type Target,
} from "./support/topologies.ts";

const env = process.env;
const ROUNDS = Math.max(3, Number(env.BENCH_ROUNDS ?? 3));
const SECONDS = Number(env.BENCH_SECONDS ?? 3);
const WARMUP = Number(env.BENCH_WARMUP_SECONDS ?? 1);
const CONCURRENCY = (env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map(Number);
const TOPOLOGIES = (env.BENCH_TOPOLOGIES ?? "embedded,distributed").split(",");
const PAYLOADS = [
  { name: "small JSON GET", path: "/proxy/small" },
  { name: "16 KB GET", path: "/proxy/16k" },
  { name: "100 KB GET", path: "/proxy/100k" },
].filter((p) => (env.BENCH_PAYLOADS ?? "small,100k").split(",").some((w) => p.path.endsWith(`/${w}`)));

const log = (line: string) => process.stdout.write(`${line}\n`);
const pinning = choosePinning();
const load = chooseLoadGenerator(pinning, log);
log(`# Proxy benchmark: ${load.name}, ${pinning.description}`);
log(`# ${ROUNDS} interleaved rounds of ${SECONDS} s (warm-up ${WARMUP} s); load average ${loadAverage()}`);

const upstream = await startUpstream(pinning);
const targets: Target[] = [await startBareProxy(pinning, upstream.url)];
try {
  // BENCH_EMBEDDED_ENV=K=V,...: settings for the embedded target (the roles of an on ÷ off pair swapped).
  if (TOPOLOGIES.includes("embedded")) {
    targets.push(await startEmbedded(pinning, upstream.url, { env: envList(env.BENCH_EMBEDDED_ENV) }));
  }
  if (env.BENCH_FLOOR !== "0") targets.push(await startFloor(pinning, upstream.url));
  if (env.BENCH_COMPARE_ROOT) {
    targets.push(
      await startEmbedded(pinning, upstream.url, {
        root: env.BENCH_COMPARE_ROOT,
        name: "compared",
        env: envList(env.BENCH_COMPARE_ENV),
      }),
    );
  }
  if (TOPOLOGIES.includes("distributed")) targets.push(await startDistributed(pinning, upstream.url));
  if (env.BENCH_BREAKDOWN === "1") {
    targets.push(await startBreakdown(pinning, upstream.url, "handler-only"));
    targets.push(await startBreakdown(pinning, upstream.url, "handler-request-id"));
    targets.push(await startBreakdown(pinning, upstream.url, "gateway-no-log"));
    targets.push(await startBreakdown(pinning, upstream.url, "floor-in-junction"));
    targets.push(await startBreakdown(pinning, upstream.url, "floor-junction-modules"));
    targets.push(await startFloor(pinning, upstream.url, { withLibraries: true }));
  }
  await checkSameAnswers(targets);

  for (const t of targets) await load.run(`${t.url}${PAYLOADS[0]?.path}`, 16, WARMUP, proxyHeaders);
  const rssBefore = new Map(targets.map((t) => [t.name, residentBytes(t.pids)]));

  /** results[target][payload][concurrency] = one result per round */
  const results = new Map<string, LoadResult[]>();
  const keyOf = (t: string, p: string, c: number) => `${t}|${p}|${c}`;
  for (const payload of PAYLOADS) {
    for (const c of CONCURRENCY) {
      for (const t of targets) await load.run(`${t.url}${payload.path}`, c, WARMUP, proxyHeaders);
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the order each round, so that no target always runs first or last.
        const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
        for (const t of order) {
          const cpuBefore = cpuMillis(t.pids);
          const r = await load.run(`${t.url}${payload.path}`, c, SECONDS, proxyHeaders);
          // CPU per request of the proxy's own processes: steadier than req/s on a shared machine.
          r.cpuUsPerRequest = ((cpuMillis(t.pids) - cpuBefore) * 1000) / Math.max(1, r.requests);
          const k = keyOf(t.name, payload.name, c);
          results.set(k, [...(results.get(k) ?? []), r]);
        }
      }
      log(`  done: ${payload.name}, c=${c}`);
    }
  }
  const rssAfter = new Map(targets.map((t) => [t.name, residentBytes(t.pids)]));
  // Every round's figures, for the spread an A/B reports beside its medians.
  log("\n## rounds (req/s, CPU µs per request)\n");
  for (const p of PAYLOADS) {
    for (const c of CONCURRENCY) {
      for (const t of targets) {
        const rs = results.get(keyOf(t.name, p.name, c)) ?? [];
        const each = rs.map((r) => `${r.rps.toFixed(0)}/${(r.cpuUsPerRequest ?? Number.NaN).toFixed(0)}`);
        log(`${p.name} c=${c} ${t.name}: ${each.join("  ")}`);
      }
    }
  }

  const med = (t: string, p: string, c: number) => {
    const rs = results.get(keyOf(t, p, c)) ?? [];
    return {
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50Ms)),
      p99: median(rs.map((r) => r.p99Ms)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
      cpu: median(rs.map((r) => r.cpuUsPerRequest ?? Number.NaN)),
    };
  };
  for (const t of targets.filter((x) => x.name !== "bare")) {
    log(`\n## ${t.name} vs bare (median of ${ROUNDS})\n`);
    const rows: string[][] = [];
    for (const p of PAYLOADS) {
      for (const c of CONCURRENCY) {
        const b = med("bare", p.name, c);
        const j = med(t.name, p.name, c);
        rows.push([
          p.name,
          String(c),
          b.rps.toFixed(0),
          j.rps.toFixed(0),
          ratio(j.rps, b.rps),
          `${b.p50.toFixed(2)} / ${b.p99.toFixed(2)}`,
          `${j.p50.toFixed(2)} / ${j.p99.toFixed(2)}`,
          ratio(j.p99, b.p99),
          `${b.cpu.toFixed(0)} / ${j.cpu.toFixed(0)}`,
          String(b.errors + j.errors),
        ]);
      }
    }
    log(
      table(
        [
          "payload",
          "c",
          "bare req/s",
          `${t.name} req/s`,
          "ratio",
          "bare p50/p99 ms",
          `${t.name} p50/p99 ms`,
          "p99 ratio",
          `CPU µs/req bare / ${t.name}`,
          "errors",
        ],
        rows,
      ),
    );
    const mib = (n: number | undefined) => ((n ?? 0) / 1048576).toFixed(1);
    log(
      `\nresident memory of ${t.name}: ${mib(rssBefore.get(t.name))} MiB before the load, ${mib(rssAfter.get(t.name))} MiB after`,
    );
  }

  const withTargets = CONCURRENCY.includes(64) ? ["embedded", "floor"] : [];
  for (const name of withTargets.filter((n) => targets.some((t) => t.name === n))) {
    // The floor is measured against the same targets: what any proxy doing the checks reaches here.
    log(`\n## Targets (${name === "embedded" ? "embedded" : "for reference: the floor"}, c=64)\n`);
    for (const p of PAYLOADS) {
      const b = med("bare", p.name, 64);
      const j = med(name, p.name, 64);
      const tput = j.rps / b.rps;
      const tail = j.p99 / b.p99;
      log(
        `- ${p.name}: throughput ${tput.toFixed(2)}× bare (target ≥ 0.85) ${tput >= 0.85 ? "MET" : "NOT MET"}; p99 ${tail.toFixed(2)}× bare (target ≤ 1.2) ${tail <= 1.2 ? "MET" : "NOT MET"}`,
      );
    }
  }
  if (env.BENCH_BREAKDOWN === "1") {
    // Where Junction's CPU per request goes, layer by layer, at the highest concurrency measured.
    const c = Math.max(...CONCURRENCY);
    const layers = [
      "bare",
      "floor",
      "floor-libraries",
      "floor-junction-modules",
      "floor-in-junction",
      "handler-only",
      "handler-request-id",
      "gateway-no-log",
      "embedded",
    ].filter((n) => targets.some((t) => t.name === n));
    log(`\n## By layer (c=${c}): CPU µs per request; throughput and p99 against bare\n`);
    const cell = (n: string, p: string) => {
      const [m, b] = [med(n, p, c), med("bare", p, c)];
      return `${m.cpu.toFixed(0)}; ${ratio(m.rps, b.rps)}, ${ratio(m.p99, b.p99)}`;
    };
    log(
      table(
        ["payload", ...layers],
        PAYLOADS.map((p) => [p.name, ...layers.map((n) => cell(n, p.name))]),
      ),
    );
  }
  log(`\nload average at the end: ${loadAverage()}`);
} finally {
  await Promise.all([...targets, upstream].map((t) => t.stop()));
}

/** Every target must answer the upstream's bytes, or the comparison means nothing. */
async function checkSameAnswers(all: Target[]): Promise<void> {
  for (const p of PAYLOADS) {
    const expected = await (
      await fetch(`${upstream.url}${p.path.slice("/proxy".length)}`, { headers: { authorization: "Bearer x" } })
    ).arrayBuffer();
    for (const t of all) {
      const res = await fetch(`${t.url}${p.path}`, { headers: proxyHeaders });
      const got = await res.arrayBuffer();
      if (res.status !== 200 || Buffer.compare(Buffer.from(got), Buffer.from(expected)) !== 0) {
        throw new Error(`${t.name} answered ${res.status} with different bytes for ${p.path}`);
      }
    }
  }
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
}
