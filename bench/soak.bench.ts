/**
 * Memory under a long mixed load: does Junction's resident memory level? The embedded default
 * (bench/support/soak-junction.ts, a child process answering memory figures over IPC) against local fakes
 * (an upstream API and a customer endpoint, in this process), 127.0.0.1 only. BENCH_SOAK_PHASES (4) phases
 * of BENCH_SOAK_SECONDS (60) each at BENCH_SOAK_CONCURRENCY (32) requests in flight: half proxy calls, a
 * quarter calendar notifications, a quarter REST calls (bench/support/soak-traffic.ts). After each phase the
 * bench waits until every accepted notification is forwarded (at most BENCH_SOAK_DRAIN_SECONDS, 120), then
 * BENCH_SOAK_IDLE_SECONDS (5) of idle, and reads the idle figures after a full collection.
 *
 *   bun run bench:soak          (or: bun bench/soak.bench.ts)
 *
 * Printed per phase: requests, errors, p99, RSS at the phase's end, and at idle: RSS (anonymous and
 * file-backed apart: the database's memory map is file-backed), JSC's heap in use and its objects, the
 * database and WAL sizes; then the object types that grew most between idle points.
 * BENCH_SOAK_SNAPSHOTS=<dir> also writes a heap snapshot at each idle point (large: tens of MB each).
 * Bounded: at most 20 phases of at most 600 s, and the whole run at most an hour.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@junction/platform/testing/free-port";
import { spawn } from "bun";
import { median, table } from "./support/report.ts";
import type { SoakMemory } from "./support/soak-junction.ts";
import {
  CONNECTIONS,
  calendarUri,
  NOTIFY_INTEGRATION,
  type PhaseCounts,
  PROXY_INTEGRATION,
  runMix,
  type SoakKind,
  type SoakTarget,
} from "./support/soak-traffic.ts";

const env = process.env;
const PHASES = Math.min(20, Math.max(1, Number(env.BENCH_SOAK_PHASES ?? 4)));
const SECONDS = Math.min(600, Math.max(1, Number(env.BENCH_SOAK_SECONDS ?? 60)));
const CONCURRENCY = Math.min(256, Math.max(1, Number(env.BENCH_SOAK_CONCURRENCY ?? 32)));
const DRAIN = Math.min(600, Number(env.BENCH_SOAK_DRAIN_SECONDS ?? 120));
const IDLE = Math.min(120, Number(env.BENCH_SOAK_IDLE_SECONDS ?? 5));
const SNAPSHOTS = env.BENCH_SOAK_SNAPSHOTS;
// At each idle point (after the figures are read), SQLite is asked to free its page caches: what that frees is
// printed, and the next phase starts with empty caches (a diagnostic; it changes what is measured after it).
const SHRINK = env.BENCH_SOAK_SHRINK === "1";
const ONLY = env.BENCH_SOAK_ONLY as SoakKind | undefined;
if (ONLY !== undefined && !["proxy", "notifications", "rest"].includes(ONLY)) {
  throw new Error("BENCH_SOAK_ONLY is one of proxy, notifications, rest");
}
const KEY = "jct_sk_bench_soak_0123456789abcdefghijklmn";
const HOUR_MS = 3_600_000;
const ROOT = join(import.meta.dir, "..");
const log = (line: string) => process.stdout.write(`${line}\n`);
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

if (PHASES * (SECONDS + DRAIN + IDLE) * 1000 > HOUR_MS) {
  throw new Error("BENCH_SOAK_PHASES × (BENCH_SOAK_SECONDS + drain + idle) must stay under an hour");
}
const runDeadline = performance.now() + HOUR_MS;

/** The upstream API the proxy calls: a small JSON answer for a bearer token. */
const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    if (!req.headers.get("authorization")?.startsWith("Bearer ")) return new Response("no token", { status: 401 });
    return Response.json({ kind: "calendar#calendarListEntry", id: "alice@example.com", primary: true });
  },
});
/** The customer's endpoint: counts the forwarded notifications. */
let delivered = 0;
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    await req.arrayBuffer();
    delivered++;
    return new Response(null, { status: 200 });
  },
});

const dataDir = mkdtempSync(join(tmpdir(), "junction-soak-"));
const port = await freePort();
let pending = new Map<number, (m: SoakMemory) => void>();
let onReady: (port: number) => void = () => {};
const ready = new Promise<number>((resolve) => {
  onReady = resolve;
});
const child = spawn(["bun", join(ROOT, "bench/support/soak-junction.ts")], {
  cwd: ROOT,
  env: {
    PATH: env.PATH ?? "",
    HOME: env.HOME ?? "/tmp",
    ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("JUNCTION_"))),
    JUNCTION_DATA_DIR: dataDir,
    PORT: String(port),
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_SECRET_KEY: KEY,
    JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    // The mix, not the intake limits (bench:flood's subject): set past what the driver sends; they still run.
    JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: env.JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE ?? "1000000",
    JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: env.JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST ?? "1000000",
    JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE: env.JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE ?? "1000000",
    JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST: env.JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST ?? "1000000",
  },
  // Its request logs go to a file, as a service's logs go to a journal: a pipe nobody reads would hold them.
  stdout: Bun.file(join(dataDir, "junction.log")),
  stderr: "inherit",
  ipc(message: { id: number; memory?: SoakMemory; ready?: number }) {
    if (message.ready !== undefined) onReady(message.ready);
    else if (message.memory) {
      pending.get(message.id)?.(message.memory);
      pending.delete(message.id);
    }
  },
});
// Interrupted, the bench stops its Junction (the child also stops when its IPC channel closes).
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    child.kill("SIGTERM");
    process.exit(130);
  });
}
let asked = 0;
const memoryOf = (options: { gc?: boolean; snapshot?: string; shrink?: boolean } = {}) =>
  new Promise<SoakMemory>((resolve, reject) => {
    const id = ++asked;
    const timer = setTimeout(() => reject(new Error("Junction did not answer the memory request")), 60_000);
    pending.set(id, (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.send({ id, ...options });
  });

async function api(t: SoakTarget, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** The two integrations (proxy to the fake upstream; calendar notifications) and their connections. */
async function setUp(url: string): Promise<SoakTarget> {
  const t: SoakTarget = { url, key: KEY, webhookUrl: "" };
  await api(t, "POST", "/integrations", {
    unique_key: PROXY_INTEGRATION,
    provider: "google-calendar",
    upstream_overrides: { base_url: `http://127.0.0.1:${upstream.port}` },
  });
  await api(t, "POST", "/integrations", { unique_key: NOTIFY_INTEGRATION, provider: "google-calendar" });
  for (let i = 0; i < CONNECTIONS; i++) {
    const credentials = { type: "OAUTH2", access_token: `access-${i}`, expires_at: Date.now() + 24 * HOUR_MS };
    for (const key of [PROXY_INTEGRATION, NOTIFY_INTEGRATION]) {
      await api(t, "POST", "/connections", {
        provider_config_key: key,
        connection_id: `user${i}`,
        credentials,
        ...(key === NOTIFY_INTEGRATION ? { metadata: { calendarWatchResourceUris: [calendarUri(i)] } } : {}),
      });
    }
  }
  await api(t, "PUT", "/webhook-settings", { endpoints: [`http://127.0.0.1:${receiver.port}/hooks`] });
  const answer = await api(t, "GET", `/integrations/${NOTIFY_INTEGRATION}?include=webhook`);
  return { ...t, webhookUrl: (answer.data.webhook_url as string).replace("localhost", "127.0.0.1") };
}

interface PhaseRow {
  counts: PhaseCounts;
  end: SoakMemory;
  idle: SoakMemory;
  drainedMs: number;
}

function report(start: SoakMemory, rows: PhaseRow[]): void {
  log(`\n## Junction's memory per phase (MiB; idle = after the drain, ${IDLE} s idle and a full collection)\n`);
  const cells = (m: SoakMemory) => [mib(m.rss), mib(m.rssAnon), mib(m.rssFile), mib(m.heapSize)];
  const header = ["phase", "requests", "errors", "p99 ms", "RSS at end", "idle RSS", "anon", "file", "JS heap"];
  const body = rows.map((r, i) => [
    String(i + 1),
    String(r.counts.requests),
    String(r.counts.errors),
    [...r.counts.latenciesMs].sort((a, b) => a - b)[Math.floor(r.counts.latenciesMs.length * 0.99)]?.toFixed(1) ?? "",
    mib(r.end.rss),
    ...cells(r.idle),
  ]);
  log(table(header, [["start", "", "", "", "", ...cells(start)], ...body]));
  log(
    `\nobjects at idle: ${[start, ...rows.map((r) => r.idle)].map((m) => m.objectCount).join(" → ")}; ` +
      `database + WAL (MiB): ${[start, ...rows.map((r) => r.idle)].map((m) => `${mib(m.dbBytes)} + ${mib(m.walBytes)}`).join(" → ")}`,
  );
  log(
    `external + array buffers at idle (MiB): ${[start, ...rows.map((r) => r.idle)].map((m) => `${mib(m.external)} + ${mib(m.arrayBuffers)}`).join(" → ")}`,
  );
  log(
    `malloc committed / live at idle (MiB): ${[start, ...rows.map((r) => r.idle)].map((m) => `${mib(m.mallocCommitted)} / ${mib(m.mallocLive)}`).join(" → ")}`,
  );
  const kinds = [...new Set([start, ...rows.map((r) => r.idle)].flatMap((m) => Object.keys(m.anonByKind)))];
  for (const kind of kinds.sort()) {
    log(
      `anonymous, ${kind} (MiB): ${[start, ...rows.map((r) => r.idle)].map((m) => mib(m.anonByKind[kind] ?? 0)).join(" → ")}`,
    );
  }
  log(
    `SQLite at idle: ${[start, ...rows.map((r) => r.idle)].map((m) => `${m.sqliteConnections} connections, ${m.sqliteStatements} statements${SHRINK ? `, ${mib(m.sqliteCacheFreed)} MiB freed by shrink_memory` : ""}`).join(" → ")}`,
  );
  log(`drain after each phase (s): ${rows.map((r) => (r.drainedMs / 1000).toFixed(1)).join(", ")}`);
  const idles = [start, ...rows.map((r) => r.idle)];
  for (let i = 1; i < idles.length; i++) {
    const [a, b] = [idles[i - 1] as SoakMemory, idles[i] as SoakMemory];
    const grew = Object.entries(b.objectTypeCounts)
      .map(([type, n]) => [type, n - (a.objectTypeCounts[type] ?? 0)] as const)
      .filter(([, d]) => d > 0)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8)
      .map(([type, d]) => `${type} +${d}`);
    log(`object types grown, idle ${i - 1} → ${i}: ${grew.join(", ") || "none"}`);
  }
  const last = rows.length >= 3 ? rows.slice(-2).map((r) => r.idle.rss) : [];
  if (last.length === 2) {
    const [a, b] = last as [number, number];
    log(`\nidle RSS of the last two phases: ${mib(a)} → ${mib(b)} MiB (${(((b - a) / a) * 100).toFixed(1)} %)`);
  }
}

log(`# Soak (Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load ${load()})`);
log(
  `${PHASES} phases of ${SECONDS} s at ${CONCURRENCY} in flight: ${ONLY ?? "proxy 50 %, notifications 25 %, REST 25 %"}`,
);
try {
  const t = await setUp(`http://127.0.0.1:${await ready}`);
  if (SNAPSHOTS) mkdirSync(SNAPSHOTS, { recursive: true });
  const snapshot = (name: string) => (SNAPSHOTS ? { snapshot: join(SNAPSHOTS, `${name}.heapsnapshot`) } : {});
  const start = await memoryOf({ gc: true, ...snapshot("idle-0") });
  let n = 0;
  let accepted = 0;
  const rows: PhaseRow[] = [];
  for (let phase = 1; phase <= PHASES && performance.now() < runDeadline; phase++) {
    const counts = await runMix(t, CONCURRENCY, performance.now() + SECONDS * 1000, () => n++, ONLY);
    const end = await memoryOf();
    accepted += counts.accepted;
    const drainFrom = performance.now();
    while (delivered < accepted && performance.now() - drainFrom < DRAIN * 1000) await Bun.sleep(100);
    const drainedMs = performance.now() - drainFrom;
    if (delivered < accepted) log(`phase ${phase}: ${delivered} of ${accepted} notifications forwarded (NOT drained)`);
    await Bun.sleep(IDLE * 1000);
    const idle = await memoryOf({ gc: true, shrink: SHRINK, ...snapshot(`idle-${phase}`) });
    rows.push({ counts, end, idle, drainedMs });
    log(
      `phase ${phase}: ${counts.requests} requests (${counts.errors} errors), RSS ${mib(end.rss)} → idle ${mib(idle.rss)} MiB; load ${load()}`,
    );
    for (const s of counts.samples) log(`  unexpected: ${s}`);
  }
  report(start, rows);
  log(
    `\np50 of all phases' p50s (ms): ${median(rows.map((r) => median(r.counts.latenciesMs))).toFixed(1)}; load ${load()}`,
  );
  if (rows.some((r) => r.counts.errors > 0) || delivered < accepted) process.exitCode = 1;
} finally {
  child.kill("SIGTERM");
  await child.exited;
  upstream.stop(true);
  receiver.stop(true);
  pending = new Map();
  rmSync(dataDir, { recursive: true, force: true });
}
