import { resolve } from "node:path";
import { countStatements } from "../../test/support/statement-counter.ts";

/**
 * The operations log's write cost per operation, as a notification makes them: each notification's
 * receipt and its delivery round, recorded by the webhook service's own functions through the
 * process's OperationRecorder into a SQLite operations store on a temp file (WAL, as the embedded
 * default opens it), batches flowing as they would. For each checkout, in interleaved rounds: CPU µs
 * per operation (the recorder alone with a sink that keeps nothing, then recorder and store); then,
 * exact, statements and pages written to the WAL per operation.
 *
 *   OPLOG_ROUNDS=5 OPLOG_CONNECTIONS=64 bun bench/support/oplog-record.ts [operations=100000] [root=.] [root…]
 *
 * A root is a checkout whose recorder, store and webhook service are measured (a worktree of another
 * commit, its node_modules installed); all are loaded in this one process and take turns.
 */
interface Checkout {
  root: string;
  OperationRecorder: new (options: object) => Recorder;
  openDatabase: (path: string) => Db;
  systemClock: unknown;
  SqliteOperationStore: new (db: Db) => Store;
  recordDeliveryRound: (ctx: object, message: object, attempts: object[], outcome: object, at: number) => void;
  recordReceipt: (recorder: Recorder, clock: unknown, req: object, receipt: Promise<object>) => Promise<unknown>;
}
interface Recorder {
  attach(sink: (batch: unknown[]) => Promise<void>): void;
  flushed(): Promise<void>;
  readonly droppedTotal: number;
}
interface Store {
  insert(batch: unknown[]): Promise<void>;
  count(): Promise<number>;
}
interface Db {
  exec(sql: string): void;
  query(sql: string): { get(): unknown };
  close(): void;
}

const total = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.env.OPLOG_ROUNDS ?? 3);
const roots = process.argv.length > 3 ? process.argv.slice(3) : ["."];
const dir = `/tmp/oplog-record-${process.pid}`;
/** The connections the notifications are spread over (the integration's index has an entry per operation). */
const connections = Number(process.env.OPLOG_CONNECTIONS ?? 64);

async function load(path: string): Promise<Checkout> {
  const root = resolve(path);
  const at = (file: string) => import(`${root}/${file}`);
  return {
    root,
    ...(await at("packages/platform/src/operations/operation-recorder.ts")),
    ...(await at("packages/platform/src/sqlite.ts")),
    ...(await at("packages/platform/src/clock.ts")),
    ...(await at("services/logs/src/store/sqlite-operation-store.ts")),
    ...(await at("services/webhook/src/delivery/delivery-operation.ts")),
    ...(await at("services/webhook/src/inbound/notification-operation.ts")),
  };
}

/** One notification's two operations, recorded as the webhook service records them. */
async function notify(c: Checkout, recorder: Recorder, i: number): Promise<void> {
  const at = 1_800_000_000_000 + i;
  const ntf = `ntf_${String(i).padStart(20, "0")}`;
  const id = `msg_${String(i).padStart(20, "0")}`;
  const req = { environmentId: "env_1", providerConfigKey: "cal", body: new Uint8Array() };
  await c.recordReceipt(recorder, c.systemClock, req, Promise.resolve({ notificationId: ntf, notificationIds: [ntf] }));
  const message = {
    id,
    environmentId: "env_1",
    type: "forward",
    providerConfigKey: "cal",
    connectionId: `u-${i % connections}`,
  };
  const url = "http://127.0.0.1:4000/hooks?token=x";
  const attempt = { id: `att_${i}`, messageId: id, endpointId: "ep_1", url, statusCode: 200, latencyMs: 3 };
  const outcome = { status: "succeeded", nextAttemptAt: null, lastError: null, updatedAt: at + 3 };
  c.recordDeliveryRound(
    { operations: recorder },
    message,
    [{ ...attempt, error: null, at: at + 3, number: 1 }],
    outcome,
    at,
  );
}

/** Records `count` operations (two per notification) through a recorder into `sink`; answers CPU µs. */
async function run(c: Checkout, sink: (batch: unknown[]) => Promise<void>, count: number): Promise<number> {
  // A row per receipt (as before receipts became per-minute totals): this measures a row's cost, two per notification.
  const recorder = new c.OperationRecorder({ clock: c.systemClock, maxBuffered: 10_000, notificationReceipts: true });
  recorder.attach(sink);
  const before = process.cpuUsage();
  // 250 notifications (a full batch of 500 operations) at a time, then the batch goes, as under load.
  for (let n = 0; n < count / 2; n += 250) {
    const wave: Promise<void>[] = [];
    for (let k = n; k < Math.min(n + 250, count / 2); k++) wave.push(notify(c, recorder, k));
    await Promise.all(wave);
    await recorder.flushed();
  }
  const cpu = process.cpuUsage(before);
  if (recorder.droppedTotal > 0) throw new Error(`${recorder.droppedTotal} operations dropped`);
  return cpu.user + cpu.system;
}

let files = 0;
function openStore(c: Checkout): { db: Db; store: Store } {
  const db = c.openDatabase(`${dir}/${files++}.sqlite`);
  return { db, store: new c.SqliteOperationStore(db) };
}

/** CPU µs per operation: the recorder alone, and recorder and store. */
async function timed(c: Checkout): Promise<{ alone: number; written: number }> {
  const alone = await run(c, async () => {}, total);
  const { db, store } = openStore(c);
  await run(c, (b) => store.insert(b), 1000); // warms the statements and the cache, not counted
  const written = await run(c, (b) => store.insert(b), total);
  const stored = await store.count();
  if (stored !== total + 1000) throw new Error(`stored ${stored} of ${total + 1000}`);
  db.close();
  return { alone: alone / total, written: written / total };
}

/** Statements and WAL pages per operation, exact: a store opened after the counter wraps the statements. */
async function counted(c: Checkout): Promise<{ statements: number; pages: number; list: string[] }> {
  const statements = countStatements();
  const { db, store } = openStore(c);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  statements.reset();
  const sample = Math.min(total, 20_000);
  await run(c, (b) => store.insert(b), sample);
  const counts = [...statements.counts];
  const pages = (db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number }).log;
  db.close();
  let n = 0;
  const list: string[] = [];
  for (const [sql, k] of counts) {
    n += k;
    list.push(`${(k / sample).toFixed(3)}  ${sql.slice(0, 100)}`);
  }
  statements.reset();
  return { statements: n / sample, pages: pages / sample, list };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
try {
  const checkouts = await Promise.all(roots.map(load));
  const times = new Map(checkouts.map((c) => [c, [] as { alone: number; written: number }[]]));
  for (const c of checkouts) await timed(c); // the JIT's warm-up, not counted
  for (let r = 0; r < rounds; r++) for (const c of checkouts) times.get(c)?.push(await timed(c));
  for (const c of checkouts) {
    const t = times.get(c) ?? [];
    const { statements, pages, list } = await counted(c);
    const alone = t.map((x) => x.alone);
    const store = t.map((x) => x.written - x.alone);
    console.log(
      `${c.root}: ${total} operations, ${rounds} rounds: recorder alone ${median(alone).toFixed(2)} µs CPU/op ` +
        `(${alone.map((x) => x.toFixed(1)).join(" ")}), store ${median(store).toFixed(2)} ` +
        `(${store.map((x) => x.toFixed(1)).join(" ")}); ${statements.toFixed(3)} statements/op, ` +
        `${pages.toFixed(3)} WAL pages/op`,
    );
    if (process.env.OPLOG_STATEMENTS) for (const line of list) console.log(`  ${line}`);
  }
} finally {
  await Bun.$`rm -rf ${dir}`;
}
