/**
 * The records store's figures:
 *
 *   bun run bench:records          (or: bun bench/records.bench.ts)
 *
 * 1. batchSave from a script, end to end (QuickJS sandbox → host call → record checks → SQLite file in
 *    WAL mode, as the embedded default runs it): 1 KB records in batches of 1,000, records per second of
 *    the time the script spent in `await nango.batchSave(...)`, against a bare bun:sqlite insert of the
 *    same rows (id, JSON) into a table with the id as primary key, in one transaction per 1,000;
 * 2. an embedded Junction (its own process) runs a sync that saves BENCH_SYNC_RECORDS records (default
 *    1,000,000; ~200 bytes each, batches of 1,000): peak RSS of the Junction process and its sandbox
 *    processes, sampled every 100 ms;
 * 3. GET /records/ (what @nangohq/node's listRecords sends) paging BENCH_PAGE_RECORDS (100,000) of those
 *    records in pages of 1,000: records per second and p99 of one page.
 * Environment: BENCH_SAVE_RECORDS (20000), BENCH_SYNC_RECORDS, BENCH_PAGE_RECORDS, BENCH_ROUNDS (3).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import { ScriptRuntime } from "../scripts-runtime/src/index.ts";
import { SqliteRecordStore } from "../scripts-runtime/src/records/sqlite-record-store.ts";
import { createRunRecords } from "../scripts-runtime/src/service/host/run-records.ts";
import { RecordingHost } from "../scripts-runtime/testing/recording-host.ts";
import { freePort, ROOT, startProcess, waitHealthy } from "./support/processes.ts";
import { median, ratio, table } from "./support/report.ts";
import { addConnection, CONNECTION, INTEGRATION, SECRET_KEY } from "./support/topologies.ts";

const env = process.env;
const SAVE_RECORDS = Number(env.BENCH_SAVE_RECORDS ?? 20_000);
const SYNC_RECORDS = Number(env.BENCH_SYNC_RECORDS ?? 1_000_000);
const PAGE_RECORDS = Math.min(Number(env.BENCH_PAGE_RECORDS ?? 100_000), SYNC_RECORDS);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const BATCH = 1000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const loads = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** A sync that saves `count` records of ~`bytes` bytes in batches of 1,000, timing its batchSave calls. */
const savingSync = (count: number, bytes: number) => `export default createSync({
  frequency: "1d",
  exec: async (nango) => {
    const pad = "x".repeat(${bytes - 100});
    let inSave = 0;
    for (let b = 0; b < ${count / BATCH}; b++) {
      const batch = [];
      for (let i = 0; i < ${BATCH}; i++) batch.push({ id: "r" + b + "-" + i, title: "record " + i, n: i, body: pad });
      const t = Date.now();
      await nango.batchSave(batch, "Item");
      inSave += Date.now() - t;
    }
    return { inSave };
  },
});`;

async function scriptSave(dir: string, round: number): Promise<number> {
  const runtime = await ScriptRuntime.start({ poolSize: 1, limits: { timeoutMs: 3_600_000, memoryBytes: 256 << 20 } });
  const store = new SqliteRecordStore(openDatabase(join(dir, `script-${round}.sqlite`)));
  const host = new RecordingHost();
  const records = createRunRecords({
    store,
    now: () => Date.now(),
    scope: { environmentId: "env", providerConfigKey: "bench", connectionId: "c", variant: "base" },
    syncName: "bench",
    models: null,
    startedAt: Date.now(),
    maxRecordsPerRun: SAVE_RECORDS,
    pagination: async () => null,
    environmentVariables: [],
  });
  Object.assign(host, { records });
  const result = await runtime.run({
    script: { source: savingSync(SAVE_RECORDS, 1024), filename: "bench.ts" },
    entry: "exec",
    host,
  });
  await runtime.close();
  await store.close();
  if (result.status !== "succeeded") throw new Error(`the saving script failed: ${JSON.stringify(result.error)}`);
  return SAVE_RECORDS / ((result.output as { inSave: number }).inSave / 1000);
}

function bareInsert(dir: string, round: number): number {
  const db = openDatabase(join(dir, `bare-${round}.sqlite`));
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, data TEXT NOT NULL)");
  const pad = "x".repeat(1024 - 100);
  const rows: [string, string][] = [];
  for (let b = 0; b < SAVE_RECORDS / BATCH; b++) {
    for (let i = 0; i < BATCH; i++)
      rows.push([`r${b}-${i}`, JSON.stringify({ title: `record ${i}`, n: i, body: pad })]);
  }
  const insert = db.query("INSERT INTO t (id, data) VALUES (?, ?)");
  const t = performance.now();
  for (let at = 0; at < rows.length; at += BATCH) {
    db.transaction(() => {
      for (const [id, data] of rows.slice(at, at + BATCH)) insert.run(id, data);
    })();
  }
  const rate = rows.length / ((performance.now() - t) / 1000);
  db.close();
  return rate;
}

/** The pids of `root` and every descendant (the sandbox processes). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {}
  }
  const out: number[] = [];
  for (let queue = [root]; queue.length; ) {
    const pid = queue.shift() as number;
    out.push(pid);
    queue = [...queue, ...(children.get(pid) ?? [])];
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function embeddedSync(dir: string) {
  const port = await freePort();
  const p = startProcess(
    "embedded",
    ["bun", join(ROOT, "cli/junction.ts"), "start"],
    {
      PORT: String(port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_DATA_DIR: dir,
      JUNCTION_SECRET_KEY: SECRET_KEY,
      JUNCTION_SCRIPTS_TIMEOUT_MS: "3600000",
      JUNCTION_LOG_LEVEL: "warn",
      JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    },
    { quiet: true },
  );
  const url = `http://127.0.0.1:${port}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${SECRET_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  try {
    await waitHealthy(`${url}/health`, [p]);
    await addConnection(url, "http://127.0.0.1:9");
    await api("POST", "/scripts", {
      provider_config_key: INTEGRATION,
      name: "items",
      source: savingSync(SYNC_RECORDS, 200),
    });
    // Peak RSS of the Junction process and its sandbox processes, sampled while the sync runs.
    const peaks = new Map<number, number>();
    const sample = () => {
      for (const pid of processTree(p.proc.pid)) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, rssOf(pid)));
    };
    const sampler = setInterval(sample, 100);
    const started = performance.now();
    await api("POST", "/sync/trigger", {
      provider_config_key: INTEGRATION,
      connection_id: CONNECTION,
      syncs: ["items"],
    });
    let run: { status: string } | undefined;
    for (;;) {
      run = (await api("GET", `/scripts/runs?script=items&limit=1`)).data[0];
      if (run && run.status !== "running") break;
      await Bun.sleep(500);
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    sample();
    if (run?.status !== "succeeded") throw new Error(`the sync ended ${run?.status}`);
    const junctionPeak = peaks.get(p.proc.pid) ?? 0;
    const sandboxPeak = Math.max(0, ...[...peaks].filter(([pid]) => pid !== p.proc.pid).map(([, v]) => v));

    // GET /records/ as the Node SDK sends it, pages of 1,000.
    const pageTimes: number[] = [];
    let cursor = "";
    let read = 0;
    const t = performance.now();
    while (read < PAGE_RECORDS) {
      const q = new URLSearchParams({ model: "Item", limit: "1000", ...(cursor ? { cursor } : {}) });
      const t0 = performance.now();
      const res = await fetch(`${url}/records/?${q}`, {
        headers: {
          authorization: `Bearer ${SECRET_KEY}`,
          "connection-id": CONNECTION,
          "provider-config-key": INTEGRATION,
        },
      });
      const page = (await res.json()) as { records: unknown[]; next_cursor: string | null };
      pageTimes.push(performance.now() - t0);
      read += page.records.length;
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    const listSeconds = (performance.now() - t) / 1000;
    const sorted = [...pageTimes].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
    return { seconds, junctionPeak, sandboxPeak, read, listRate: read / listSeconds, p99, p50: median(pageTimes) };
  } finally {
    await p.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), "junction-records-bench-"));
try {
  log("# Records benchmark");
  log(`# Bun ${Bun.version}; load average ${loads()}`);
  const saves: number[] = [];
  const bares: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bares.push(bareInsert(dir, round));
    saves.push(await scriptSave(dir, round));
  }
  log("\n## batchSave from a script (1 KB records, batches of 1,000)\n");
  log(
    table(
      ["path", "records/s (median)", "rounds", "ratio"],
      [
        [
          "bare bun:sqlite insert, one transaction per 1,000",
          median(bares).toFixed(0),
          bares.map((r) => r.toFixed(0)).join(", "),
          "1.00×",
        ],
        [
          "nango.batchSave (sandbox → host → store)",
          median(saves).toFixed(0),
          saves.map((r) => r.toFixed(0)).join(", "),
          ratio(median(saves), median(bares)),
        ],
      ],
    ),
  );
  const sync = await embeddedSync(join(dir, "embedded"));
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  log(`\n## A sync of ${SYNC_RECORDS} records (~200 bytes) in an embedded Junction\n`);
  log(
    table(
      ["figure", "value"],
      [
        ["sync duration", `${sync.seconds.toFixed(1)} s (${(SYNC_RECORDS / sync.seconds).toFixed(0)} records/s)`],
        ["peak RSS, Junction process", mb(sync.junctionPeak)],
        ["peak RSS, sandbox process", mb(sync.sandboxPeak)],
      ],
    ),
  );
  log(`\n## GET /records/ paging ${sync.read} records, pages of 1,000\n`);
  log(
    table(
      ["records/s", "page p50", "page p99"],
      [[sync.listRate.toFixed(0), `${sync.p50.toFixed(1)} ms`, `${sync.p99.toFixed(1)} ms`]],
    ),
  );
  log(`\n# load average at the end ${loads()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
