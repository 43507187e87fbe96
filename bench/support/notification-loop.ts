/**
 * The notification path's own CPU, without sockets: the embedded default in this process, calendar
 * notifications handed to its gateway's `fetch` (16 in flight), each on a new channel (a UUID, as Google's
 * channel ids are) and matched to one of 100 connections by its watch URI, its forward message delivered
 * to an endpoint whose `fetch` answers 200 at once. Each round prints the process's CPU time (user + system, every thread: SQLite's, the collector's) per notification,
 * counted until every one's delivery is answered and its job acked. Steadier on a shared machine than the
 * load benchmark, and a clean subject for a profile (`bun --cpu-prof-md bench/support/notification-loop.ts`):
 * what is left is Junction's work, not the HTTP legs' (those are the same code in every version).
 *   bun bench/support/notification-loop.ts [notifications per round] [rounds] [checkout root]
 * (a checkout root: that checkout's Junction, e.g. before a change; run both one after the other, alternated.)
 * With LOOP_PAGES=1 each round also counts, exactly, the pages it wrote to `junction.sqlite` (WAL frames,
 * checkpoints held off) per notification, and which tables and indexes they belong to (`wal-frames.ts`).
 * Each round also prints the main thread's CPU per notification (the path's JavaScript and SQLite, without
 * the collector's and other helper threads': steadier than the process's on a busy machine).
 * With LOOP_THREADS=1 each round also prints each thread's CPU per notification, by thread name (/proc).
 * With LOOP_COMMIT_CPU=1 each round also prints the main thread's CPU inside the group commit's batches
 * (the path's writes, their BEGIN and COMMIT) per notification: the part the pages written cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { startEmbedded as StartEmbedded } from "@junction/cli";
import type { createLogger as CreateLogger } from "@junction/platform";
import type { createGateway as CreateGateway } from "../../gateway/src/gateway.ts";
import { threadMillis } from "./processes.ts";
import { threadCpuMs } from "./thread-cpu-time.ts";
import { WalFrames } from "./wal-frames.ts";

const perRound = Number(process.argv[2] ?? 4000);
const rounds = Number(process.argv[3] ?? 5);
const root = process.argv[4] ?? join(import.meta.dir, "..", "..");
const { startEmbedded } = (await import(join(root, "cli/src/embedded.ts"))) as { startEmbedded: typeof StartEmbedded };
const { createGateway } = (await import(join(root, "gateway/src/gateway.ts"))) as {
  createGateway: typeof CreateGateway;
};
const { createLogger } = (await import(join(root, "packages/platform/src/index.ts"))) as {
  createLogger: typeof CreateLogger;
};
/** The main thread's CPU ms inside the group commit's `flush`, summed: every batch, its writes and commit. */
let commitCpuMs = 0;
if (process.env.LOOP_COMMIT_CPU === "1") {
  const { GroupCommit } = (await import(join(root, "packages/bus/src/group-commit.ts"))) as {
    GroupCommit: { prototype: { flush(): void } };
  };
  const flush = GroupCommit.prototype.flush;
  GroupCommit.prototype.flush = function (this: unknown) {
    const started = threadCpuMs();
    try {
      flush.call(this);
    } finally {
      commitCpuMs += threadCpuMs() - started;
    }
  };
}
const KEY = "jct_sk_bench_notification_loop_0123456789";
const RECEIVER = "http://127.0.0.1:9/hooks";
const CONNECTIONS = 100;
const uriOf = (i: number) => `https://www.googleapis.com/calendar/v3/calendars/user${i}%40example.com/events?alt=json`;

let delivered = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
  if (String(input) === RECEIVER) {
    delivered++;
    return new Response(null, { status: 200 });
  }
  return realFetch(input as string, init);
}) as typeof fetch;

const dataDir = mkdtempSync(join(tmpdir(), "junction-notification-loop-"));
const logger = createLogger({ sink: () => {} });
const junction = await startEmbedded({
  env: {
    JUNCTION_DATA_DIR: dataDir,
    JUNCTION_SECRET_KEY: KEY,
    JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY: "16",
    JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: "1000000",
    JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: "1000000",
    JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE: "1000000",
    JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST: "1000000",
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("JUNCTION_"))),
  },
  port: 0,
  hostname: "127.0.0.1",
  logger,
});
const gateway = createGateway({ clients: junction.clients, baseUrl: junction.baseUrl, logger });

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await gateway.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

await api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
for (let i = 0; i < CONNECTIONS; i++) {
  await api("POST", "/connections", {
    provider_config_key: "cal",
    connection_id: `user${i}`,
    credentials: { type: "OAUTH2", access_token: `access-${i}` },
    metadata: { calendarWatchResourceUris: [uriOf(i)] },
  });
}
await api("PUT", "/webhook-settings", { endpoints: [RECEIVER] });
await api("POST", "/webhook-settings/signing-secret", {});
const environmentId = (await junction.clients.connection.getEnvironment({})).environment?.id ?? "";
const webhookUrl = `http://127.0.0.1/webhook/${environmentId}/cal`;

// LOOP_CHANNELS=registered: each connection's channel is in the registry (as a watch a script made), and
// each notification is its channel's next message number, as Google sends them: the channel check then
// finds the channel and records the message number. Otherwise each notification is on a new, unknown channel.
const registered = process.env.LOOP_CHANNELS === "registered";
const channelOf = (i: number) => `loop-channel-${i}`;
if (registered) {
  const { openDatabase } = (await import(join(root, "packages/platform/src/index.ts"))) as {
    openDatabase: (path: string) => import("bun:sqlite").Database;
  };
  const { SqliteChannelStore } = (await import(join(root, "services/channel/src/store/sqlite-store.ts"))) as {
    SqliteChannelStore: new (
      db: import("bun:sqlite").Database,
    ) => {
      recordWatch(watch: Record<string, unknown>): Promise<unknown>;
    };
  };
  // A second connection to the file, as another process would write: Junction reads the channels from it.
  const db = openDatabase(join(dataDir, "junction.sqlite"));
  const channels = new SqliteChannelStore(db);
  for (let i = 0; i < CONNECTIONS; i++) {
    await channels.recordWatch({
      environmentId,
      channelId: channelOf(i),
      resourceId: "resource-1",
      providerConfigKey: "cal",
      connectionId: `user${i}`,
      resourceUri: uriOf(i),
      expiration: null,
      token: null,
      at: Date.now(),
    });
  }
  db.close();
}

let sent = 0;
const notification = () => {
  const i = sent++;
  return new Request(webhookUrl, {
    method: "POST",
    headers: {
      // A new channel each, named as Google's are (UUIDs): the de-duplication key goes to a random place.
      // Registered: the connection's channel, its next message number.
      "x-goog-channel-id": registered ? channelOf(i % CONNECTIONS) : crypto.randomUUID(),
      "x-goog-message-number": registered ? String(1 + Math.floor(i / CONNECTIONS)) : "1",
      "x-goog-resource-id": "resource-1",
      "x-goog-resource-state": "exists",
      "x-goog-resource-uri": uriOf(i % CONNECTIONS),
    },
  });
};

/** CPU and wall µs per notification of `n`, 16 in flight, until every one is delivered. */
async function run(n: number): Promise<{ cpu: number; wall: number; main: number }> {
  commitCpuMs = 0;
  const target = delivered + n;
  let left = n;
  const started = performance.now();
  const threads = process.env.LOOP_THREADS === "1" ? threadMillis(process.pid) : undefined;
  const cpu = process.cpuUsage();
  const mainStarted = threadCpuMs();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) {
        const res = await gateway.fetch(notification());
        if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  while (delivered < target) await Bun.sleep(1);
  const used = process.cpuUsage(cpu);
  const main = ((threadCpuMs() - mainStarted) * 1000) / n;
  if (threads) printThreads(threads, n);
  if (process.env.LOOP_COMMIT_CPU === "1") {
    console.log(`  group commit: ${((commitCpuMs * 1000) / n).toFixed(1)} µs of the main thread per notification`);
  }
  commitCpuMs = 0;
  return { cpu: (used.user + used.system) / n, wall: ((performance.now() - started) * 1000) / n, main };
}

/** Each thread's CPU µs per notification of `n` since `before`, largest first (those under 1 µs left out). */
function printThreads(before: Map<string, number>, n: number): void {
  const parts = [...threadMillis(process.pid)]
    .map(([name, ms]) => [name, ((ms - (before.get(name) ?? 0)) * 1000) / n] as const)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1]);
  console.log(`  threads: ${parts.map(([name, us]) => `${name} ${us.toFixed(0)}`).join(", ")}`);
}

/** Until the file's WAL stops growing: the last rounds' writes (outcomes, acks) are committed. */
async function settled(): Promise<void> {
  const wal = join(dataDir, "junction.sqlite-wal");
  for (let last = -1, size = Bun.file(wal).size; size !== last; last = size, size = Bun.file(wal).size) {
    await Bun.sleep(50);
  }
}

/** A round with its pages counted: frames per notification, commits, and per table or index. */
async function countedRun(n: number): Promise<{ cpu: number; wall: number; main: number }> {
  await settled();
  const frames = new WalFrames(join(dataDir, "junction.sqlite"));
  frames.hold();
  const r = await run(n);
  await settled();
  const counted = frames.count();
  frames.close();
  const per = (k: number) => (k / n).toFixed(3);
  console.log(`  pages ${per(counted.frames)} per notification, commits ${per(counted.commits)}`);
  for (const [tree, k] of counted.byTree) console.log(`    ${per(k).padStart(7)}  ${tree}`);
  return r;
}

const countPages = process.env.LOOP_PAGES === "1";
await run(Number(process.env.LOOP_WARMUP ?? Math.min(perRound, 2000)));
const results: { cpu: number; wall: number; main: number }[] = [];
for (let round = 0; round < rounds; round++) {
  const r = countPages ? await countedRun(perRound) : await run(perRound);
  results.push(r);
  console.log(
    `round ${round + 1}: ${r.cpu.toFixed(1)} µs CPU (main thread ${r.main.toFixed(1)}), ${r.wall.toFixed(1)} µs wall per notification`,
  );
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]?.toFixed(1);
console.log(
  `median ${median(results.map((r) => r.cpu))} µs CPU per notification (main thread ${median(results.map((r) => r.main))})`,
);
await junction.stop();
if (process.env.LOOP_KEEP !== "1") rmSync(dataDir, { recursive: true, force: true });
else console.log(dataDir);
process.exit(0);
