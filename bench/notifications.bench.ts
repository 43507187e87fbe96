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
 * X-Nango-Hmac-Sha256, with the same two secrets) and posts the same bodies to the same receiver,
 * one at a time ("a loop"), and again with the driver's concurrency. Rounds are interleaved; medians.
 *
 * Matching: `matchNotification` (what ConnectionService.MatchNotification runs) on a SQLite store
 * seeded with insertConnectionsBulk, for a rule-1 hit, a rule-2 hit in the third tier (four index
 * searches) and a miss (four index searches), at each size.
 *
 * Environment: BENCH_NOTIFICATIONS (3000), BENCH_ROUNDS (3), BENCH_NOTIFY_CONCURRENCY (16),
 * BENCH_MATCH_SIZES (1000,100000,1000000), BENCH_MATCH_QUERIES (20000), BENCH_SKIP_MATCH=1,
 * BENCH_SKIP_THROUGHPUT=1, BENCH_PROFILE=<dir> (CPU profile of Junction, markdown).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
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
const SIZES = (env.BENCH_MATCH_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const QUERIES = Number(env.BENCH_MATCH_QUERIES ?? 20_000);
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

/** A TCP port that was free a moment ago on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function startJunction(dataDir: string): Promise<{ url: string; proc: Subprocess }> {
  const port = await freePort();
  // BENCH_PROFILE=<dir>: a CPU profile of Junction (markdown) is written there when it stops.
  const profile = env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${env.BENCH_PROFILE}`] : [];
  const proc = spawn(["bun", ...profile, join(ROOT, "cli/junction.ts"), "start"], {
    cwd: ROOT,
    env: {
      PATH: env.PATH ?? "",
      HOME: env.HOME ?? "/tmp",
      JUNCTION_DATA_DIR: dataDir,
      PORT: String(port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_SECRET_KEY: KEY,
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, proc };
    } catch {}
    if (Date.now() > deadline) throw new Error("junction did not start");
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

async function throughput(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-notifications-"));
  const receiver = startReceiver();
  const junction = await startJunction(dir);
  try {
    await api(junction.url, "POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    for (let i = 0; i < CONNECTIONS; i++) {
      await api(junction.url, "POST", "/connections", {
        provider_config_key: "cal",
        connection_id: `user${i}`,
        metadata: { calendarWatchResourceUris: [uriOf(i)] },
        credentials: { type: "OAUTH2", access_token: `access-${i}` },
      });
    }
    await api(junction.url, "PUT", "/webhook-settings", { endpoints: [receiver.url] });
    // Two secrets sign during a rotation's grace period: the bare loop signs with both too.
    const current = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
    const previous = (await api(junction.url, "POST", "/webhook-settings/signing-secret", {})).data.signing_secret;
    const secrets = [previous, current].reverse();
    const webhookUrl = (await api(junction.url, "GET", "/integrations/cal?include=webhook")).data.webhook_url.replace(
      "localhost",
      "127.0.0.1",
    );
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

    const viaJunction = async (round: string): Promise<number> => {
      const target = receiver.count + N;
      const started = performance.now();
      await pool(N, CONCURRENCY, async (i) => {
        const res = await fetch(webhookUrl, { method: "POST", headers: headersOf(round, i) });
        if (res.status !== 200) throw new Error(`notification answered ${res.status}`);
        await res.arrayBuffer();
      });
      await receiver.until(target);
      return N / ((performance.now() - started) / 1000);
    };
    const bare = async (concurrency: number): Promise<number> => {
      const target = receiver.count + N;
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
      return N / ((performance.now() - started) / 1000);
    };

    log(`\n## Throughput: ${N} notifications per run, ${ROUNDS} interleaved rounds, driver concurrency ${CONCURRENCY}`);
    await viaJunction("warmup");
    await bare(1);
    const results = { junction: [] as number[], bareLoop: [] as number[], bareConcurrent: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const order = [
        async () => results.junction.push(await viaJunction(`r${r}`)),
        async () => results.bareLoop.push(await bare(1)),
        async () => results.bareConcurrent.push(await bare(CONCURRENCY)),
      ];
      for (let k = 0; k < order.length; k++) await (order[(k + r) % order.length] as () => Promise<unknown>)();
      log(
        `round ${r + 1}: junction ${results.junction[r]?.toFixed(0)}/s, bare loop ${results.bareLoop[r]?.toFixed(0)}/s, bare x${CONCURRENCY} ${results.bareConcurrent[r]?.toFixed(0)}/s (load ${load()})`,
      );
    }
    const j = median(results.junction);
    const b1 = median(results.bareLoop);
    const bc = median(results.bareConcurrent);
    log("");
    log("| | notifications/s (median) | Junction ÷ this |");
    log("|---|---:|---:|");
    log(`| Junction, receipt → receiver (durable, embedded) | ${j.toFixed(0)} | — |`);
    log(`| bare Bun loop, one at a time | ${b1.toFixed(0)} | ${(j / b1).toFixed(2)}× |`);
    log(`| bare Bun loop, ${CONCURRENCY} in flight | ${bc.toFixed(0)} | ${(j / bc).toFixed(2)}× |`);
  } finally {
    junction.proc.kill("SIGTERM");
    await junction.proc.exited;
    receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function matchTimes(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-match-"));
  const store = SqliteConnectionStore.open(join(dir, "connection.sqlite"));
  try {
    const envId = (
      await store.getOrCreateEnvironment(() => ({ id: newId("env"), name: "prod", createdAt: Date.now() }))
    ).id;
    log(`\n## Match time: ${QUERIES} matches per case, µs per match (median of 5 batches)`);
    log("| connections | seeding | rule 1 hit | rule 2 hit (3rd tier) | no match |");
    log("|---:|---:|---:|---:|---:|");
    let seeded = 0;
    const rows: number[][] = [];
    for (const size of SIZES) {
      const started = performance.now();
      while (seeded < size) {
        const batch: ConnectionRecord[] = [];
        for (let i = seeded; i < Math.min(size, seeded + 50_000); i++) batch.push(connection(envId, i));
        await store.insertConnectionsBulk(batch);
        seeded += batch.length;
      }
      const seedSeconds = (performance.now() - started) / 1000;
      const pick = () => Math.floor(Math.random() * size);
      const cases: Array<() => string> = [
        () => uriOf(pick()),
        // No query string: rule 1 misses; i % 3 === 2 has only metadata.email, the last tier.
        () => `https://www.googleapis.com/calendar/v3/calendars/user${emailOnly(pick(), size)}%40example.com/events`,
        () => `https://www.googleapis.com/calendar/v3/calendars/nobody${pick()}%40example.com/events`,
      ];
      const perCase = [];
      for (const make of cases) {
        const batches: number[] = [];
        for (let b = 0; b < 5; b++) {
          const uris = Array.from({ length: Math.ceil(QUERIES / 5) }, make);
          const t = performance.now();
          for (const uri of uris) await matchNotification(store, envId, "cal", uri);
          batches.push(((performance.now() - t) * 1000) / uris.length);
        }
        perCase.push(median(batches));
      }
      rows.push(perCase);
      log(
        `| ${size.toLocaleString("en")} | ${seedSeconds.toFixed(1)} s | ${perCase.map((us) => `${us.toFixed(1)} µs`).join(" | ")} |`,
      );
    }
    const first = rows[0] as number[];
    const last = rows[rows.length - 1] as number[];
    log(
      `\nlargest ÷ smallest: ${last.map((v, i) => `${(v / (first[i] as number)).toFixed(2)}×`).join(", ")} (target ≤ 1.5×)`,
    );
  } finally {
    await store.close();
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
    createdAt: at,
    updatedAt: at,
  };
}
