/**
 * The proxy's JavaScript alone: Junction's gateway (or the floor's handler) called in a loop with the
 * upstream `fetch` answered at once, 64 requests in flight, no sockets. Steadier than the load runs:
 * for telling a few hundred ns of per-request work apart. Each round prints its wall time and the process's
 * CPU time (user + system, every thread: the collector's too) per request; on a shared machine the CPU time
 * is the figure to compare.
 *   bun bench/support/js-loop.ts [junction|handler|floor|both] [requests] [--bytes]
 * (handler: the /proxy handler alone, without the gateway around it; both: junction and floor).
 * --no-metrics: every counter and histogram event a no-op (what the metrics cost: run with and without it).
 * --orders=N: the requests cycle through N orders of their headers, as callers using different HTTP clients
 * send them (what a request path that reads headers by a shape-dependent record costs then).
 * The gateway records its calls in the operations log as `junction start` does (JUNCTION_LOGS_RECORD=false: not).
 * --cells: instead of timing, the heap cells allocated per request by type, after the warm-up (cell-counts.ts).
 * --bytes: also the bytes allocated per request, from the collector's own log (`BUN_JSC_logGC`, set for a
 * child run only: the heap's growth between collections, summed, over the requests; repeatable to a few bytes).
 */
import { Counter, createLogger, Histogram } from "@junction/platform";
import { cellsPerRequest } from "./cell-counts.ts";
import { createGateway } from "../../gateway/src/gateway.ts";
import { directProxyHandler } from "./direct-handler.ts";
import { LOOP_UPSTREAM, startLoopJunction } from "./loop-junction.ts";
import { minimalCheckedProxy } from "./minimal-checked-proxy.ts";
import { CONNECTION, INTEGRATION, SECRET_KEY } from "./topologies.ts";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (process.argv.includes("--no-metrics")) {
  Counter.prototype.inc = () => {};
  Histogram.prototype.observe = () => {};
}
const which = args[0] ?? "both";
const total = Number(args[1] ?? 300_000);
const UPSTREAM = LOOP_UPSTREAM;
const WARMUP_REQUESTS = 20_000;
if (process.argv.includes("--bytes")) await reportBytes();

// JUNCTION_LOGS_RECORD=false: without the operations log's tally of each call (what it costs).
const loop = await startLoopJunction(
  process.env.JUNCTION_LOGS_RECORD ? { JUNCTION_LOGS_RECORD: process.env.JUNCTION_LOGS_RECORD } : {},
);
const { junction } = loop;

const discard = createLogger({ sink: () => {} });
const gateway = createGateway({
  clients: junction.clients,
  baseUrl: junction.baseUrl,
  // As in production: one JSON line per request, written to a sink that drops it.
  logger: createLogger({ sink: () => {} }),
  // As in production: each call tallied in the process's operations log.
  operations: junction.operations,
});
const environmentId = (await junction.clients.connection.getEnvironment({})).environment?.id ?? "";
const targets: Record<string, (req: Request) => Promise<Response>> = {
  junction: gateway.fetch,
  // The /proxy handler alone, called as the gateway calls it (no request id, router, key check or log).
  handler: directProxyHandler({ clients: junction.clients, baseUrl: junction.baseUrl, environmentId, logger: discard }),
  floor: minimalCheckedProxy(UPSTREAM, SECRET_KEY, INTEGRATION, CONNECTION),
};
const headers = {
  host: "127.0.0.1:8080",
  authorization: `Bearer ${SECRET_KEY}`,
  "provider-config-key": INTEGRATION,
  "connection-id": CONNECTION,
};
const ordersArg = process.argv.find((a) => a.startsWith("--orders="))?.slice("--orders=".length);
const orderCount = Number(ordersArg ?? 1);
const headerOrders =
  ordersArg === undefined ? [Object.entries(headers)] : Array.from({ length: orderCount }, (_, i) => rotatedHeaders(i));
let sent = 0;
const request = () =>
  new Request("http://127.0.0.1:8080/proxy/small", { headers: headerOrders[sent++ % orderCount] as HeadersInit });

/** The benchmark's headers and a client's usual ones, in the `i`th order: rotated, reversed every other time. */
function rotatedHeaders(i: number): [string, string][] {
  const all: [string, string][] = [
    ...Object.entries(headers),
    ["user-agent", "client/1.0"],
    ["accept", "application/json"],
    ["accept-encoding", "gzip"],
  ];
  const rotated = [...all.slice(i % all.length), ...all.slice(0, i % all.length)];
  return Math.floor(i / all.length) % 2 === 1 ? rotated.reverse() : rotated;
}

/** Wall and CPU microseconds per request of `n` requests. */
async function run(fetchOf: (req: Request) => Promise<Response>, n: number): Promise<{ wall: number; cpu: number }> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await fetchOf(request());
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, worker));
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - started) * 1000) / n, cpu: (used.user + used.system) / n };
}

const names = which === "both" ? ["junction", "floor"] : [which];
for (const name of names) await run(targets[name] as (req: Request) => Promise<Response>, WARMUP_REQUESTS);
if (process.argv.includes("--cells")) await reportCells();
const results: Record<string, { wall: number; cpu: number }[]> = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < 5; round++) {
  for (const name of names)
    results[name]?.push(await run(targets[name] as (req: Request) => Promise<Response>, total / 5));
}
for (const name of names) {
  for (const kind of ["wall", "cpu"] as const) {
    const sorted = (results[name] ?? []).map((r) => r[kind]).sort((a, b) => a - b);
    console.log(
      `${name.padEnd(9)} ${kind.padEnd(4)} median ${sorted[2]?.toFixed(2)} µs/request  (rounds ${sorted.map((v) => v.toFixed(2)).join(" ")})`,
    );
  }
}
await loop.stop();
process.exit(0);

/**
 * Runs this loop again for one target at a time with the collector's log on, and prints what each allocated
 * per request (warm-up included) besides its timing.
 */
async function reportBytes(): Promise<never> {
  for (const name of which === "both" ? ["junction", "floor"] : [which]) {
    const orders = process.argv.filter((a) => a.startsWith("--orders="));
    const child = Bun.spawn(["bun", import.meta.path, name, String(total), ...orders], {
      env: { ...process.env, BUN_JSC_logGC: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, log] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    await child.exited;
    // "START <kind> <size>kb" before each collection, "=> <size>kb," after it.
    let allocated = 0;
    let after: number | undefined;
    for (const m of log.replaceAll("\0", "").matchAll(/START [A-Z] (\d+)kb|=> (\d+)kb, p=/g)) {
      if (m[1] !== undefined && after !== undefined) allocated += Number(m[1]) - after;
      if (m[2] !== undefined) after = Number(m[2]);
    }
    const requests = total + WARMUP_REQUESTS;
    console.log(
      `${out.trim()}\n${name.padEnd(9)} ${((allocated * 1024) / requests).toFixed(0)} bytes allocated per request`,
    );
  }
  process.exit(0);
}

/** Prints each target's heap cells per request by type (after the warm-up), then exits. */
async function reportCells(): Promise<never> {
  for (const name of names) {
    const target = targets[name] as (req: Request) => Promise<Response>;
    // More warm-up first: the optimising tiers remove allocations the lower ones make.
    await run(target, 40_000);
    const { rows, total } = await cellsPerRequest((n) => run(target, n));
    console.log(`${name}: ${total.toFixed(1)} cells per request`);
    for (const [type, n] of rows) console.log(`${n.toFixed(2).padStart(8)}  ${type}`);
  }
  await loop.stop();
  process.exit(0);
}
