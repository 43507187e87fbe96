/**
 * A reference point for the notifications benchmark, not a product: the smallest durable forwarder
 * one could write on Bun. It receives a notification (POST, headers only), records it in a SQLite
 * file (WAL, synchronous=NORMAL, like Junction) in one transaction per event-loop turn, answers 200
 * once that transaction is committed, then signs the forward body exactly as Junction does and posts
 * it to the receiver with `concurrency` posts in flight, deleting the row once the receiver answered
 * 2xx (again one transaction per turn). No matching (every notification goes to one connection id
 * taken from the resource URI), no auth, no de-duplication, no retry schedule, no delivery log, no
 * services: what any durable forwarder costs at least on this machine.
 *
 *   bun bench/support/minimal-forwarder.ts <port> <receiver URL> <data dir> <concurrency> <secret> [<secret>]
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { newId } from "@junction/platform";
import { forwardBody, signatureHeaders } from "@junction/webhook-service";

const [portArg, receiverUrl, dataDir, concurrencyArg, ...secrets] = process.argv.slice(2) as string[];
const concurrency = Number(concurrencyArg ?? 16);
const db = new Database(join(dataDir as string, "forwarder.sqlite"), { create: true });
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = NORMAL");
db.exec("CREATE TABLE IF NOT EXISTS inbox (id TEXT PRIMARY KEY, headers TEXT NOT NULL) WITHOUT ROWID");
const insert = db.prepare("INSERT INTO inbox (id, headers) VALUES (?, ?)");
const remove = db.prepare("DELETE FROM inbox WHERE id = ?");

/** Writes asked for in one turn run in one transaction at its end; each caller resolves after the commit. */
let writes: Array<() => void> = [];
let waiters: Array<() => void> = [];
const commit = db.transaction((batch: Array<() => void>) => {
  for (const w of batch) w();
});
function write(w: () => void): Promise<void> {
  if (writes.length === 0) setImmediate(flush);
  writes.push(w);
  return new Promise((resolve) => waiters.push(resolve));
}
function flush(): void {
  const batch = writes;
  const done = waiters;
  writes = [];
  waiters = [];
  commit(batch);
  for (const resolve of done) resolve();
}

const queue: Array<{ id: string; headers: Record<string, string> }> = [];
let inFlight = 0;
function pump(): void {
  while (inFlight < concurrency && queue.length > 0) {
    const job = queue.shift() as { id: string; headers: Record<string, string> };
    inFlight++;
    void deliver(job).finally(() => {
      inFlight--;
      pump();
    });
  }
}
async function deliver(job: { id: string; headers: Record<string, string> }): Promise<void> {
  const uri = job.headers["x-goog-resource-uri"] ?? "";
  const body = forwardBody({
    from: "google-calendar",
    providerConfigKey: "cal",
    connectionId: uri.match(/calendars\/([^%]+)%40/)?.[1] ?? "",
    payload: job.headers,
  });
  const headers = {
    ...signatureHeaders(secrets, job.id, Math.floor(Date.now() / 1000), body),
    "content-type": "application/json",
  };
  const res = await fetch(receiverUrl as string, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer> });
  await res.arrayBuffer();
  if (res.ok) await write(() => remove.run(job.id));
  else queue.push(job);
}

const server = Bun.serve({
  port: Number(portArg ?? 0),
  hostname: "127.0.0.1",
  async fetch(req) {
    if (new URL(req.url).pathname === "/health") return new Response("ok");
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const id = newId("msg");
    await write(() => insert.run(id, JSON.stringify(headers)));
    queue.push({ id, headers });
    pump();
    return Response.json({ data: { id } });
  },
});
process.stdout.write(`listening ${server.port}\n`);
