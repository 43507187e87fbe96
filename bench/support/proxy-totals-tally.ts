import { systemClock } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";

/**
 * The recorder's part of a successful proxy call alone: `proxyTotals.add` (the per-minute totals' map
 * update) in a loop, over 1 and over 1,000 (connection, status) keys, against an empty loop of the same
 * shape. Prints ns of CPU per call and the heap growth once the keys exist (no allocation per call).
 * `bun bench/support/proxy-totals-tally.ts [calls]`
 */
const calls = Number(process.argv[2] ?? 2_000_000);
const connections = Array.from({ length: 500 }, (_, i) => `conn-${i}`);
const statuses = [200, 204];

function cpuNs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / calls;
}

function run(keys: number): { ns: number; heapBytesPerCall: number } {
  const recorder = new OperationRecorder({ clock: systemClock });
  let sink = 0;
  const loop = (tally: boolean) => () => {
    const now = Date.now();
    for (let i = 0; i < calls; i++) {
      const k = i % keys;
      const connection = connections[k % connections.length] as string;
      const status = statuses[(k / connections.length) | 0] ?? 200;
      if (tally) recorder.proxyTotals.add("env_1", "calendar", connection, "GET", status, i & 15, now);
      else sink += status + connection.length;
    }
  };
  loop(true)(); // the keys exist and the code is warm
  const empty = cpuNs(loop(false));
  Bun.gc(true);
  const heap = process.memoryUsage().heapUsed;
  const full = cpuNs(loop(true));
  const grown = process.memoryUsage().heapUsed - heap;
  if (sink < 0) console.log(sink);
  return { ns: full - empty, heapBytesPerCall: grown / calls };
}

for (const keys of [1, 1000]) {
  const { ns, heapBytesPerCall } = run(keys);
  console.log(`${keys} key(s): ${ns.toFixed(0)} ns CPU per call, heap +${heapBytesPerCall.toFixed(2)} bytes per call`);
}
