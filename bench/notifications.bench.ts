/**
 * Calendar notifications: receipt to the customer's receiver, against a bare Bun loop posting the
 * same signed messages to the same receiver in the same run; and the time to match a notification
 * with 10³, 10⁵ and 10⁶ connections in the store.
 *
 *   bun run bench:notifications          (or: bun bench/notifications.bench.ts)
 *
 * Throughput: `junction start` (the embedded default: SQLite WAL, durable queues) in a child process
 * at the default log level; a driver posts N notifications (distinct channels, each matching one
 * connection by rule 1) to the webhook URL with BENCH_NOTIFY_CONCURRENCY in flight, and the time runs
 * until the local receiver has all N forwarded messages. The bare loop signs (Standard Webhooks +
 * X-Nango-Hmac-Sha256, with the same two secrets) and posts the same bodies to the same receiver.
 * Like for like, the bare loop gets as many posts in flight as Junction gets deliveries in flight
 * (BENCH_DELIVERY_CONCURRENCY, passed to Junction as JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY): that
 * ratio is the headline. The bare loop one at a time is shown too. Rounds are interleaved, the
 * order rotating; medians. Also printed: CPU time per notification of the Junction process (from
 * /proc) and of this process (driver + receiver, or the bare loop), which a loaded machine moves
 * less than the rates.
 *
 * Matching: `matchNotification` (what ConnectionService.MatchNotifications runs for each
 * notification) on SQLite stores seeded with insertConnectionsBulk, one per size, for a rule-1 hit
 * (one search), a rule-2 hit in the third tier and a miss (two searches each: the watch URI, then rule 2's three tiers at once). The
 * sizes are measured in interleaved rounds (one batch of each case at each size per round, after an
 * untimed round), so that they see the same machine load; medians of 5 rounds.
 *
 * Also measured like Junction, as a reference: the floor, the smallest durable forwarder on Bun
 * (bench/support/minimal-forwarder.ts: record in SQLite, answer, sign, post; nothing else), which
 * shows what share of the bare loop's rate any durable forwarder reaches on this machine.
 *
 * Environment: BENCH_NOTIFICATIONS (3000), BENCH_SKIP_FLOOR=1, BENCH_ROUNDS (3), BENCH_NOTIFY_CONCURRENCY (16),
 * BENCH_DELIVERY_CONCURRENCY (= BENCH_NOTIFY_CONCURRENCY), BENCH_MATCH_SIZES (1000,100000,1000000),
 * BENCH_MATCH_QUERIES (20000), BENCH_MATCH_NANGO=1 (match as for an integration with imported connections,
 * which also looks Nango's emailAddressHash formula up), BENCH_SKIP_MATCH=1, BENCH_SKIP_THROUGHPUT=1, BENCH_PROFILE=<dir> (CPU
 * profile of Junction, markdown), BENCH_SQL_PROFILE=1 (time of each SQLite statement Junction runs, per
 * notification: bench/support/sql-profile.ts), BENCH_COMPARE_ROOT=<checkout> (also measures the Junction of
 * another checkout, e.g. before a change, in the same rounds), BENCH_COMPARE_ENV=K=V,... (environment for that other
 * Junction only, e.g. a setting's old value: BENCH_COMPARE_ROOT=. compares two settings of the same code),
 * JUNCTION_WEBHOOK_* (passed to Junction).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { freePort } from "@junction/platform/testing/free-port";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { emailAddressHash, matchNotification } from "@junction/connection-service";
import type { ConnectionRecord } from "@junction/connection-service/store/records";
import { SqliteConnectionStore } from "@junction/connection-service/store/sqlite-store";
import { newId } from "@junction/platform";
import { forwardBody, signatureHeaders } from "@junction/webhook-service";

const env = process.env;
const N = Number(env.BENCH_NOTIFICATIONS ?? 3000);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(env.BENCH_NOTIFY_CONCURRENCY ?? 16);
// Junction's deliveries in flight, and the bare loop's for the like-for-like comparison.
const DELIVERY = Number(env.BENCH_DELIVERY_CONCURRENCY ?? CONCURRENCY);
const COMPARE_ROOT = env.BENCH_COMPARE_ROOT;
const COMPARE_ENV = Object.fromEntries(
  (env.BENCH_COMPARE_ENV ?? "")
    .split(",")
    .filter((kv) => kv.includes("="))
    .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
);
const SIZES = (env.BENCH_MATCH_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const QUERIES = Number(env.BENCH_MATCH_QUERIES ?? 20_000);
const MATCH_OPTIONS = { nangoEmailHashes: env.BENCH_MATCH_NANGO === "1" };
const KEY = "jct_sk_bench_notifications_0123456789abcdef";
const ROOT = join(import.meta.dir, "..");
const CONNECTIONS = 100;

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const uriOf = (i: number) => `https://www.googleapis.com/calendar/v3/calendars/user${i}%40example.com/events?alt=json`;

log(`# Notifications benchmark (Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load ${load()})`);
if (env.BENCH_SKIP_THROUGHPUT !== "1") await throughput();
if (env.BENCH_SKIP_MATCH !== "1") await matchTimes();

/** A local customer receiver that counts what it gets and answers 200. */
function startReceiver() {
  let count = 0;
  let waiter: { n: number; resolve: () => void } | undefined;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      await req.arrayBuffer();
      count++;
      if (waiter && count >= waiter.n) {
        waiter.resolve();
        waiter = undefined;
      }
      return new Response(null, { status: 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    get count() {
      return count;
    },
    /** Resolves once `n` requests arrived in total. */
    until(n: number, timeoutMs = 300_000): Promise<void> {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${count} of ${n}`)), timeoutMs);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    stop: () => server.stop(true),
  };
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time this process has used so far, in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

interface RunningJunction {
  url: string;
  proc: Subprocess;
  dataDir: string;
  /** Where its SQLite statement times are written on exit (BENCH_SQL_PROFILE=1). */
  sqlProfile?: string;
}

/** `junction start` from the checkout at `root`, on a free port, with its own data dir. */
async function startJunction(
  root: string,
  label: string,
  extraEnv: Record<string, string> = {},
): Promise<RunningJunction> {
  const dataDir = mkdtempSync(join(tmpdir(), `junction-bench-notifications-${label}-`));
  const port = await freePort();
  // BENCH_PROFILE=<dir>: a CPU profile of Junction (markdown) is written there when it stops.
  const profile = env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${env.BENCH_PROFILE}`] : [];
  // BENCH_SQL_PROFILE=1: Junction times its SQLite statements and writes them to sqlProfile on exit.
  const sqlProfile =
    env.BENCH_SQL_PROFILE === "1" ? join(mkdtempSync(join(tmpdir(), "junction-sql-")), "sql.json") : undefined;
  const preload = sqlProfile ? ["--preload", join(ROOT, "bench/support/sql-profile.ts")] : [];
  const proc = spawn(["bun", ...profile, ...preload, join(root, "cli/junction.ts"), "start"], {
    cwd: root,
    env: {
      PATH: env.PATH ?? "",
      HOME: env.HOME ?? "/tmp",
      // Tuning knobs pass through (JUNCTION_WEBHOOK_INBOUND_CONCURRENCY...); the delivery concurrency is the bench's.
      ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("JUNCTION_WEBHOOK_"))),
      JUNCTION_DATA_DIR: dataDir,
      PORT: String(port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_SECRET_KEY: KEY,
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
      JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY: String(DELIVERY),
      ...(sqlProfile ? { JUNCTION_BENCH_SQL_PROFILE: sqlProfile } : {}),
      ...extraEnv,
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, proc, dataDir, sqlProfile };
    } catch {}
    if (Date.now() > deadline) {
      await stopJunction({ url, proc, dataDir });
      throw new Error(`junction (${label}) did not start`);
    }
    await Bun.sleep(50);
  }
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `task(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
}

/** A Junction set up for the run: integration, connections, the receiver as endpoint, two signing secrets. */
interface Contender {
  label: string;
  junction: RunningJunction;
  webhookUrl: string;
  /** Plaintext signing secrets, current first (a rotation's grace period: both sign). */
  secrets: string[];
}

async function setUp(
  root: string,
  label: string,
  receiverUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<Contender> {
  const junction = await startJunction(root, label, extraEnv);
  try {
    return await configure(junction, label, receiverUrl);
  } catch (err) {
    await stopJunction(junction);
    throw err;
  }
}

async function configure(junction: RunningJunction, label: string, receiverUrl: string): Promise<Contender> {
  await api(junction.url, "POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
  for (let i = 0; i < CONNECTIONS; i++) {
    await api(junction.url, "POST", "/connections", {
      provider_config_key: "cal",
      connection_id: `user${i}`,
      metadata: { calendarWatchResourceUris: [uriOf(i)] },
      credentials: { type: "OAUTH2", access_token: `access-${i}` },
    });
  }
  await api(junction.url, "PUT", "/webhook-settings", { endpoints: [receiverUrl] });
  // Two rotations: the first secret stays valid for the grace period, so Junction signs with both.
  const first = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
  const second = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
  const webhookUrl = (await api(junction.url, "GET", "/integrations/cal?include=webhook")).data.webhook_url.replace(
    "localhost",
    "127.0.0.1",
  );
  return { label, junction, webhookUrl, secrets: [second, first] };
}

/** The minimal durable forwarder, as a contender: same driver, same receiver, same secrets. */
async function startFloor(receiverUrl: string, secrets: string[]): Promise<Contender> {
  const dataDir = mkdtempSync(join(tmpdir(), "junction-bench-floor-"));
  const port = await freePort();
  const proc = spawn(
    [
      "bun",
      join(ROOT, "bench/support/minimal-forwarder.ts"),
      String(port),
      receiverUrl,
      dataDir,
      String(DELIVERY),
      ...secrets,
    ],
    { cwd: ROOT, stdout: "ignore", stderr: "inherit" },
  );
  const url = `http://127.0.0.1:${port}`;
  const junction = { url, proc, dataDir };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) {
      await stopJunction(junction);
      throw new Error("the minimal forwarder did not start");
    }
    await Bun.sleep(50);
  }
  return { label: "floor", junction, webhookUrl: `${url}/webhook`, secrets };
}

async function stopJunction(j: RunningJunction): Promise<void> {
  j.proc.kill("SIGTERM");
  await j.proc.exited;
  rmSync(j.dataDir, { recursive: true, force: true });
}

async function throughput(): Promise<void> {
  const receiver = startReceiver();
  const contenders: Contender[] = [];
  try {
    contenders.push(await setUp(ROOT, "junction", receiver.url));
    // BENCH_COMPARE_ROOT=<checkout>: another Junction (say, before a change) measured in the same rounds.
    // BENCH_COMPARE_ENV=K=V,...: settings for that Junction only (say, a setting's old value on the same code).
    if (COMPARE_ROOT) contenders.push(await setUp(COMPARE_ROOT, "compared", receiver.url, COMPARE_ENV));
    const secrets = (contenders[0] as Contender).secrets;
    // The floor: the smallest durable forwarder on Bun (bench/support/minimal-forwarder.ts), measured
    // like Junction. BENCH_SKIP_FLOOR=1 leaves it out.
    if (env.BENCH_SKIP_FLOOR !== "1") contenders.push(await startFloor(receiver.url, secrets));
    const headersOf = (round: string, i: number) => ({
      "X-Goog-Channel-ID": `bench-${round}-${i}`,
      "X-Goog-Channel-Expiration": "Tue, 01 Dec 2026 12:00:00 GMT",
      "X-Goog-Message-Number": "1",
      "X-Goog-Resource-ID": `resource-${i % CONNECTIONS}`,
      "X-Goog-Resource-State": "exists",
      "X-Goog-Resource-URI": uriOf(i % CONNECTIONS),
    });
    // The bodies Junction forwards, built the same way, for the bare loop.
    const bodies = Array.from({ length: N }, (_, i) =>
      forwardBody({
        from: "google-calendar",
        providerConfigKey: "cal",
        connectionId: `user${i % CONNECTIONS}`,
        payload: Object.fromEntries(Object.entries(headersOf("bare", i)).map(([k, v]) => [k.toLowerCase(), v])),
      }),
    );

    /** Notifications per second through `c`, and Junction's and this process's CPU per notification. */
    const viaJunction = async (c: Contender, round: string) => {
      const target = receiver.count + N;
      const cpuBefore = [cpuMsOf(c.junction.proc.pid), ownCpuMs()] as const;
      const started = performance.now();
      await pool(N, CONCURRENCY, async (i) => {
        const res = await fetch(c.webhookUrl, { method: "POST", headers: headersOf(`${c.label}-${round}`, i) });
        if (res.status !== 200) throw new Error(`notification answered ${res.status}`);
        await res.arrayBuffer();
      });
      await receiver.until(target);
      const rate = N / ((performance.now() - started) / 1000);
      return {
        rate,
        junctionCpuUs: ((cpuMsOf(c.junction.proc.pid) - cpuBefore[0]) * 1000) / N,
        benchCpuUs: ((ownCpuMs() - cpuBefore[1]) * 1000) / N,
      };
    };
    /** The bare loop: signs each body as Junction does and posts it, `concurrency` at a time. */
    const bare = async (concurrency: number) => {
      const target = receiver.count + N;
      const cpuBefore = ownCpuMs();
      const started = performance.now();
      await pool(N, concurrency, async (i) => {
        const id = newId("msg");
        const body = bodies[i] as Uint8Array;
        const headers = {
          ...signatureHeaders(secrets, id, Math.floor(Date.now() / 1000), body),
          "content-type": "application/json",
        };
        const res = await fetch(receiver.url, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer> });
        if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
        await res.arrayBuffer();
      });
      await receiver.until(target);
      return { rate: N / ((performance.now() - started) / 1000), benchCpuUs: ((ownCpuMs() - cpuBefore) * 1000) / N };
    };

    log(
      `\n## Throughput: ${N} notifications per run, ${ROUNDS} interleaved rounds; driver ${CONCURRENCY} in flight, ` +
        `Junction ${DELIVERY} deliveries in flight, bare loop 1 and ${DELIVERY} in flight`,
    );
    for (const c of contenders) await viaJunction(c, "warmup");
    await bare(1);
    await bare(DELIVERY);
    const rates = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const note = (key: string, rate: number, cpuUs: number) => {
      rates.set(key, [...(rates.get(key) ?? []), rate]);
      cpu.set(key, [...(cpu.get(key) ?? []), cpuUs]);
    };
    const bareMatched = `bare Bun loop, ${DELIVERY} in flight`;
    const bareOne = "bare Bun loop, one at a time";
    const runs: Array<(r: number) => Promise<string>> = [
      ...contenders.map((c) => async (r: number) => {
        const m = await viaJunction(c, `r${r}`);
        note(c.label, m.rate, m.junctionCpuUs);
        return `${c.label} ${m.rate.toFixed(0)}/s (CPU/notification: its process ${m.junctionCpuUs.toFixed(0)} µs, driver + receiver ${m.benchCpuUs.toFixed(0)} µs)`;
      }),
      async () => {
        const m = await bare(DELIVERY);
        note(bareMatched, m.rate, m.benchCpuUs);
        return `bare x${DELIVERY} ${m.rate.toFixed(0)}/s (${m.benchCpuUs.toFixed(0)} µs)`;
      },
      // One at a time is the like-for-like run already when Junction delivers one at a time.
      ...(DELIVERY === 1
        ? []
        : [
            async () => {
              const m = await bare(1);
              note(bareOne, m.rate, m.benchCpuUs);
              return `bare x1 ${m.rate.toFixed(0)}/s (${m.benchCpuUs.toFixed(0)} µs)`;
            },
          ]),
    ];
    for (let r = 0; r < ROUNDS; r++) {
      const parts: string[] = [];
      // The order rotates, so that no contender always runs first (or right after a busy one).
      for (let k = 0; k < runs.length; k++)
        parts.push(await (runs[(k + r) % runs.length] as (r: number) => Promise<string>)(r));
      log(`round ${r + 1}: ${parts.join(", ")} (load ${load()})`);
    }
    const med = (key: string) => median(rates.get(key) ?? [0]);
    const b = med(bareMatched);
    const b1 = med(DELIVERY === 1 ? bareMatched : bareOne);
    log("");
    log(
      `| | notifications/s (median) | CPU µs per notification | ÷ bare, ${DELIVERY} in flight | ÷ bare, one at a time |`,
    );
    log("|---|---:|---:|---:|---:|");
    for (const c of contenders) {
      const j = med(c.label);
      const name =
        c.label === "junction"
          ? "Junction, receipt → receiver (durable, embedded)"
          : c.label === "floor"
            ? "floor: minimal durable forwarder on Bun (reference, not Junction)"
            : `Junction at ${COMPARE_ROOT}`;
      log(
        `| ${name} | ${j.toFixed(0)} | ${median(cpu.get(c.label) ?? [0]).toFixed(0)} (its process) | **${(j / b).toFixed(2)}×** | ${(j / b1).toFixed(2)}× |`,
      );
    }
    log(`| ${bareMatched} | ${b.toFixed(0)} | ${median(cpu.get(bareMatched) ?? [0]).toFixed(0)} (bench) | 1× | |`);
    if (DELIVERY !== 1) {
      log(`| ${bareOne} | ${b1.toFixed(0)} | ${median(cpu.get(bareOne) ?? [0]).toFixed(0)} (bench) | | 1× |`);
    }
  } finally {
    for (const c of contenders) await stopJunction(c.junction);
    receiver.stop();
  }
  const junction = contenders.find((c) => c.label === "junction");
  // The warm-up run and one run per round went through it.
  if (junction?.junction.sqlProfile) printSqlProfile(junction.junction.sqlProfile, N * (ROUNDS + 1));
}

/** The SQLite statements of Junction's run (BENCH_SQL_PROFILE=1), most time first, per notification. */
function printSqlProfile(file: string, notifications: number): void {
  const entries = Object.entries(
    JSON.parse(readFileSync(file, "utf8")) as Record<string, { calls: number; ns: number }>,
  )
    .map(([sql, t]) => ({ sql, ...t }))
    .sort((a, b) => b.ns - a.ns);
  const transactions = entries.find((t) => t.sql === "[transaction]") ?? { sql: "", calls: 0, ns: 0 };
  const totals = entries.filter((t) => t !== transactions);
  const all = totals.reduce((sum, t) => sum + t.ns, 0);
  const perNotification = (ns: number) => (ns / notifications / 1000).toFixed(1);
  log(`\n## SQLite statements of Junction, per notification (${notifications} notifications)`);
  log(
    `Statements: ${perNotification(all)} µs per notification in ${(totals.reduce((s, t) => s + t.calls, 0) / notifications).toFixed(1)} statements (statement time; an autocommit statement's includes its commit).`,
  );
  log(
    `Transactions, timed whole (their statements + BEGIN + COMMIT): ${perNotification(transactions.ns)} µs per notification in ${(transactions.calls / notifications).toFixed(2)} transactions.\n`,
  );
  log("| µs per notification | calls per notification | µs per call | statement |");
  log("|---:|---:|---:|---|");
  for (const t of totals.slice(0, 15)) {
    const sql = t.sql.length > 100 ? `${t.sql.slice(0, 100)}…` : t.sql;
    log(
      `| ${(t.ns / notifications / 1000).toFixed(1)} | ${(t.calls / notifications).toFixed(2)} | ${(t.ns / t.calls / 1000).toFixed(1)} | \`${sql.replaceAll("|", "\\|")}\` |`,
    );
  }
  rmSync(join(file, ".."), { recursive: true, force: true });
}

async function matchTimes(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-match-"));
  const stores: SqliteConnectionStore[] = [];
  try {
    log(`\n## Match time: ${QUERIES} matches per case, µs per match (median of 5 rounds, sizes interleaved)`);
    log("| connections | seeding | rule 1 hit | rule 2 hit (3rd tier) | no match |");
    log("|---:|---:|---:|---:|---:|");
    // One store per size, all seeded first. Then each round times one batch of every case at every
    // size, so that all sizes see the same machine load: the load of a shared machine drifts over
    // the minute of seeding, and the sizes are compared with each other.
    const sized = [];
    for (const size of SIZES) {
      const store = SqliteConnectionStore.open(join(dir, String(size), "connection.sqlite"));
      stores.push(store);
      const envId = (
        await store.getOrCreateEnvironment(() => ({ id: newId("env"), name: "prod", createdAt: Date.now() }))
      ).id;
      const started = performance.now();
      for (let seeded = 0; seeded < size; seeded += 50_000) {
        const batch: ConnectionRecord[] = [];
        for (let i = seeded; i < Math.min(size, seeded + 50_000); i++) batch.push(connection(envId, i));
        await store.insertConnectionsBulk(batch);
      }
      const seedSeconds = (performance.now() - started) / 1000;
      const pick = () => Math.floor(Math.random() * size);
      const cases: Array<() => string> = [
        () => uriOf(pick()),
        // No query string: rule 1 misses; i % 3 === 2 has only metadata.email, the last tier.
        () => `https://www.googleapis.com/calendar/v3/calendars/user${emailOnly(pick(), size)}%40example.com/events`,
        () => `https://www.googleapis.com/calendar/v3/calendars/nobody${pick()}%40example.com/events`,
      ];
      sized.push({ size, store, envId, seedSeconds, cases, batches: cases.map(() => [] as number[]) });
    }
    // Round -1 is untimed: it warms the JIT up, which would otherwise be timed in the first batches.
    for (let round = -1; round < 5; round++) {
      for (let k = 0; k < sized.length; k++) {
        const s = sized[(k + round + 1) % sized.length] as (typeof sized)[number];
        for (const [c, make] of s.cases.entries()) {
          const uris = Array.from({ length: Math.ceil(QUERIES / 5) }, make);
          const t = performance.now();
          for (const uri of uris) await matchNotification(s.store, s.envId, "cal", uri, MATCH_OPTIONS);
          if (round >= 0) s.batches[c]?.push(((performance.now() - t) * 1000) / uris.length);
        }
      }
    }
    const rows = sized.map((s) => s.batches.map(median));
    for (const [i, s] of sized.entries()) {
      log(
        `| ${s.size.toLocaleString("en")} | ${s.seedSeconds.toFixed(1)} s | ${(rows[i] as number[]).map((us) => `${us.toFixed(1)} µs`).join(" | ")} |`,
      );
    }
    const first = rows[0] as number[];
    const last = rows[rows.length - 1] as number[];
    log(
      `\nlargest ÷ smallest: ${last.map((v, i) => `${(v / (first[i] as number)).toFixed(2)}×`).join(", ")} (target ≤ 1.5×)`,
    );
  } finally {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The connection at or near i that has only metadata.email (i % 3 === 2), below `size`. */
function emailOnly(i: number, size: number): number {
  const k = i - (i % 3) + 2;
  return k < size ? k : k - 3;
}

/** Connection i: a watch URI (rule 1), and one of the three primary-calendar fields by i % 3 (rule 2). */
function connection(environmentId: string, i: number): ConnectionRecord {
  const email = `user${i}@example.com`;
  const at = 1_767_225_600_000 + i;
  return {
    id: newId("conn", at),
    environmentId,
    providerConfigKey: "cal",
    connectionId: `user${i}`,
    provider: "google-calendar",
    credentialsEnc: null,
    credentialsExpiresAt: null,
    connectionConfig: i % 3 === 0 ? { emailAddressHash: emailAddressHash(email) } : {},
    metadata: {
      calendarWatchResourceUris: [uriOf(i)],
      ...(i % 3 === 1 ? { emailAddress: email } : {}),
      ...(i % 3 === 2 ? { email } : {}),
    },
    endUser: null,
    errors: [],
    tags: {},
    createdAt: at,
    updatedAt: at,
  };
}
