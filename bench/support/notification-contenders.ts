/**
 * The contenders of bench/notifications.bench.ts: a Junction (or the minimal forwarder) set up with an
 * integration, connections, the local receiver as endpoint and two signing secrets; and the receiver.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@junction/platform/testing/free-port";
import { type Subprocess, spawn } from "bun";

const env = process.env;
export const CONCURRENCY = Number(env.BENCH_NOTIFY_CONCURRENCY ?? 16);
// Junction's deliveries in flight, and the bare loop's for the like-for-like comparison.
export const DELIVERY = Number(env.BENCH_DELIVERY_CONCURRENCY ?? CONCURRENCY);
const KEY = "jct_sk_bench_notifications_0123456789abcdef";
export const ROOT = join(import.meta.dir, "..", "..");
export const CONNECTIONS = 100;

export const log = (line: string) => process.stdout.write(`${line}\n`);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
export const uriOf = (i: number) =>
  `https://www.googleapis.com/calendar/v3/calendars/user${i}%40example.com/events?alt=json`;

/**
 * A local customer receiver that counts what it gets and answers 200; it also counts the forwarded
 * messages of each integration (`providerConfigKey`), apart those naming a connection (matched).
 */
export function startReceiver() {
  let count = 0;
  let waiter: { n: number; resolve: () => void } | undefined;
  const matched = new Map<string, number>();
  const unmatched = new Map<string, number>();
  const tally = (text: string) => {
    let message: { providerConfigKey?: unknown; connectionId?: unknown } = {};
    try {
      message = JSON.parse(text);
    } catch {}
    const key = typeof message.providerConfigKey === "string" ? message.providerConfigKey : "";
    const counts = typeof message.connectionId === "string" && message.connectionId !== "" ? matched : unmatched;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      tally(await req.text());
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
    /** Messages received so far for integration `key`: naming a connection, and not. */
    received(key: string) {
      return { matched: matched.get(key) ?? 0, unmatched: unmatched.get(key) ?? 0 };
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

/**
 * CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms); with `thread`,
 * that thread's alone (the process's own id is its main thread: the event loop, where a notification waits).
 */
export function cpuMsOf(pid: number, thread?: number): number {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(file, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time this process has used so far, in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export interface RunningJunction {
  url: string;
  proc: Subprocess;
  dataDir: string;
  /** Where its SQLite statement times are written on exit (BENCH_SQL_PROFILE=1). */
  sqlProfile?: string;
}

/** `junction start` from the checkout at `root`, on a free port, with its own data dir. */
export async function startJunction(
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
      // Tuning knobs pass through (JUNCTION_WEBHOOK_INBOUND_CONCURRENCY, JUNCTION_SQLITE_CACHE_MB...); the
      // delivery concurrency is the bench's.
      ...Object.fromEntries(
        Object.entries(env).filter(([k]) => k.startsWith("JUNCTION_WEBHOOK_") || k.startsWith("JUNCTION_SQLITE_")),
      ),
      JUNCTION_DATA_DIR: dataDir,
      PORT: String(port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_SECRET_KEY: KEY,
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
      JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY: String(DELIVERY),
      // Throughput, not the intake limits (bench:flood's subject): set past what the driver sends; they still run.
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: env.JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE ?? "1000000",
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: env.JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST ?? "1000000",
      JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE: env.JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE ?? "1000000",
      JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST: env.JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST ?? "1000000",
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

export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `task(i)` for i in [0, n) with `concurrency` in flight. */
export async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
}

/** A Junction set up for the run: integration, connections, the receiver as endpoint, two signing secrets. */
export interface Contender {
  label: string;
  junction: RunningJunction;
  webhookUrl: string;
  /** Plaintext signing secrets, current first (a rotation's grace period: both sign). */
  secrets: string[];
}

export async function setUp(
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

/** The calendar integration, the receiver as endpoint, two signing secrets. */
export async function configure(junction: RunningJunction, label: string, receiverUrl: string): Promise<Contender> {
  const webhookUrl = await addIntegration(junction, "cal", "google-calendar", (i) => ({
    metadata: { calendarWatchResourceUris: [uriOf(i)] },
  }));
  await api(junction.url, "PUT", "/webhook-settings", { endpoints: [receiverUrl] });
  // Two rotations: the first secret stays valid for the grace period, so Junction signs with both.
  const first = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
  const second = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
  return { label, junction, webhookUrl, secrets: [second, first] };
}

/**
 * Integration `key` of `provider` with CONNECTIONS connections `user{i}` (`extra(i)` merged into each
 * one's body: metadata...); its webhook URL.
 */
export async function addIntegration(
  junction: RunningJunction,
  key: string,
  provider: string,
  extra: (i: number) => Record<string, unknown>,
  integration: Record<string, unknown> = {},
): Promise<string> {
  await api(junction.url, "POST", "/integrations", { unique_key: key, provider, ...integration });
  for (let i = 0; i < CONNECTIONS; i++) {
    await api(junction.url, "POST", "/connections", {
      provider_config_key: key,
      connection_id: `user${i}`,
      credentials: { type: "OAUTH2", access_token: `access-${i}` },
      ...extra(i),
    });
  }
  const answer = await api(junction.url, "GET", `/integrations/${encodeURIComponent(key)}?include=webhook`);
  return answer.data.webhook_url.replace("localhost", "127.0.0.1");
}

/** The minimal durable forwarder, as a contender: same driver, same receiver, same secrets. */
export async function startFloor(receiverUrl: string, secrets: string[]): Promise<Contender> {
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

export async function stopJunction(j: RunningJunction): Promise<void> {
  j.proc.kill("SIGTERM");
  await j.proc.exited;
  rmSync(j.dataDir, { recursive: true, force: true });
}

/** The SQLite statements of Junction's run (BENCH_SQL_PROFILE=1), most time first, per notification. */
export function printSqlProfile(file: string, notifications: number): void {
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
