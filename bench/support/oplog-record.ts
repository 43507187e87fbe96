import { resolve } from "node:path";
import { countStatements } from "../../test/support/statement-counter.ts";

/**
 * The operations log's write cost per operation, as a notification makes them: each notification's
 * receipt and its delivery round, recorded by the webhook service's own functions through the
 * process's OperationRecorder into a SQLite operations store on a temp file (WAL, as the embedded
 * default opens it), batches flowing as they would. Prints CPU µs per operation (the recorder alone
 * with a sink that keeps nothing, then recorder and store) and statements per operation (exact).
 *
 *   bun bench/support/oplog-record.ts [root=.] [operations=100000]
 *
 * `root` is a checkout whose recorder, store and webhook service are measured (a worktree of another
 * commit: its node_modules installed). Run a checkout against another interleaved: the CPU is noisy.
 */
const root = resolve(process.argv[2] ?? ".");
const total = Number(process.argv[3] ?? 100_000);
const { OperationRecorder } = await import(`${root}/packages/platform/src/operations/operation-recorder.ts`);
const { openDatabase } = await import(`${root}/packages/platform/src/sqlite.ts`);
const { systemClock } = await import(`${root}/packages/platform/src/clock.ts`);
const { SqliteOperationStore } = await import(`${root}/services/logs/src/store/sqlite-operation-store.ts`);
const { recordDeliveryRound } = await import(`${root}/services/webhook/src/delivery/delivery-operation.ts`);
const { recordReceipt } = await import(`${root}/services/webhook/src/inbound/notification-operation.ts`);

type Recorder = InstanceType<typeof OperationRecorder>;
type Store = { insert(batch: unknown[]): Promise<void>; count(): Promise<number> };

/** One notification's two operations, recorded as the webhook service records them. */
async function notify(recorder: Recorder, i: number): Promise<void> {
  const at = 1_800_000_000_000 + i;
  const ntf = `ntf_${String(i).padStart(20, "0")}`;
  const msg = `msg_${String(i).padStart(20, "0")}`;
  const req = { environmentId: "env_1", providerConfigKey: "cal", body: new Uint8Array() };
  await recordReceipt(recorder, systemClock, req, Promise.resolve({ notificationId: ntf, notificationIds: [ntf] }));
  const message = {
    id: msg,
    environmentId: "env_1",
    type: "forward",
    providerConfigKey: "cal",
    connectionId: `alice-${i % 64}`,
  };
  const attempt = {
    id: `att_${i}`,
    messageId: msg,
    endpointId: "ep_1",
    url: "http://127.0.0.1:4000/hooks?token=x",
    statusCode: 200,
    latencyMs: 3,
    responseSnippet: "",
    error: null,
    at: at + 3,
    number: 1,
  };
  const outcome = {
    status: "succeeded",
    attemptCount: 1,
    roundAttempts: 1,
    nextAttemptAt: null,
    lastError: null,
    deliveredEndpointIds: ["ep_1"],
    updatedAt: at + 3,
  };
  recordDeliveryRound({ operations: recorder }, message, [attempt], outcome, at);
}

/** Records `count` operations (two per notification) through a recorder into `sink`; answers CPU µs. */
async function run(sink: (batch: unknown[]) => Promise<void>, count: number, first: number): Promise<number> {
  const recorder: Recorder = new OperationRecorder({ clock: systemClock, maxBuffered: 10_000 });
  recorder.attach(sink);
  const before = process.cpuUsage();
  // 250 notifications (a full batch of 500 operations) at a time, then the batch goes, as under load.
  for (let n = 0; n < count / 2; n += 250) {
    const wave: Promise<void>[] = [];
    for (let k = n; k < Math.min(n + 250, count / 2); k++) wave.push(notify(recorder, first + k));
    await Promise.all(wave);
    await recorder.flushed();
  }
  const cpu = process.cpuUsage(before);
  if (recorder.droppedTotal > 0) throw new Error(`${recorder.droppedTotal} operations dropped`);
  return cpu.user + cpu.system;
}

function openStore(name: string): { store: Store; close(): void } {
  const db = openDatabase(`${dir}/${name}.sqlite`);
  return { store: new SqliteOperationStore(db) as Store, close: () => db.close() };
}

const dir = `/tmp/oplog-record-${process.pid}`;
try {
  const alone = await run(async () => {}, total, 0);
  const { store, close } = openStore("timed");
  await run((b) => store.insert(b), 1000, 10_000_000); // warm the statements, not counted
  const written = await run((b) => store.insert(b), total, 0);
  if ((await store.count()) !== total + 1000) throw new Error(`stored ${await store.count()} of ${total + 1000}`);
  close();
  // Statements: a second store, opened after the counter wraps the prepared statements.
  const statements = countStatements();
  const counted = openStore("counted");
  statements.reset();
  const sample = Math.min(total, 20_000);
  await run((b) => counted.store.insert(b), sample, 0);
  counted.close();
  let n = 0;
  for (const c of statements.counts.values()) n += c;
  const perOp = (us: number) => (us / total).toFixed(2);
  console.log(
    `${root}: ${total} operations: recorder alone ${perOp(alone)} µs CPU/op, recorder + store ${perOp(written)} ` +
      `(store ${perOp(written - alone)}); ${(n / sample).toFixed(3)} statements/op`,
  );
  if (process.env.OPLOG_STATEMENTS)
    for (const [sql, c] of statements.counts) console.log(`  ${(c / sample).toFixed(3)}  ${sql.slice(0, 110)}`);
} finally {
  await Bun.$`rm -rf ${dir}`;
}
