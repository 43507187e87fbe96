/**
 * The gateway's JavaScript, this checkout's against another's, in one process (not a benchmark): both
 * `createGateway`s over the same embedded services, the upstream `fetch` answered at once (as js-loop.ts),
 * 64 requests in flight, rounds alternated (which goes first alternates too). On a shared machine the two
 * sides share its load, so the ratio of a round's CPU per request moves less than either.
 *   bun bench/support/gateway-ab.ts <other checkout> [requests per round] [rounds]
 * Prints each side's median CPU µs per request and the median of the rounds' ratios (this ÷ other). Run it
 * against an untouched copy of this checkout to see the harness's own bias (~1.02 in the runs so far).
 */
import { join } from "node:path";
import { createLogger } from "@junction/platform";
import { createGateway } from "../../gateway/src/gateway.ts";
import { startLoopJunction } from "./loop-junction.ts";
import { CONNECTION, INTEGRATION, SECRET_KEY } from "./topologies.ts";

type Fetch = (req: Request) => Promise<Response>;

const [otherRoot, perRoundArg, roundsArg] = process.argv.slice(2);
if (otherRoot === undefined) throw new Error("usage: gateway-ab.ts <other checkout> [requests per round] [rounds]");
const perRound = Number(perRoundArg ?? 10_000);
const rounds = Number(roundsArg ?? 41);
const other = (await import(join(otherRoot, "gateway/src/gateway.ts"))) as { createGateway: typeof createGateway };
const loop = await startLoopJunction();
const { junction } = loop;

// As in production: a request log line per call (to a sink that reads its length: the line is built
// whole) and each call tallied in the operations log.
let written = 0;
const gatewayOf = (create: typeof createGateway): Fetch =>
  create({
    clients: junction.clients,
    baseUrl: junction.baseUrl,
    logger: createLogger({
      sink: (line) => {
        written += line.length;
      },
    }),
    operations: junction.operations,
  }).fetch;
const mine = gatewayOf(createGateway);
const theirs = gatewayOf(other.createGateway);
const headers = {
  host: "127.0.0.1:8080",
  authorization: `Bearer ${SECRET_KEY}`,
  "provider-config-key": INTEGRATION,
  "connection-id": CONNECTION,
};

/** CPU µs per request (every thread) of `n` requests, 64 in flight. */
async function run(target: Fetch, n: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await target(new Request("http://127.0.0.1:8080/proxy/small", { headers }));
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, worker));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

await run(mine, 40_000);
await run(theirs, 40_000);
const rows: { mine: number; theirs: number }[] = [];
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    const a = await run(mine, perRound);
    rows.push({ mine: a, theirs: await run(theirs, perRound) });
  } else {
    const b = await run(theirs, perRound);
    rows.push({ mine: await run(mine, perRound), theirs: b });
  }
}
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[xs.length >> 1] as number;
const ratios = rows.map((r) => r.mine / r.theirs);
console.log(
  `this ${median(rows.map((r) => r.mine)).toFixed(2)} µs/request, other ${median(rows.map((r) => r.theirs)).toFixed(2)}; ` +
    `this ÷ other: median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(" ")}); ${written > 0 ? "logged" : "no log"}`,
);
await loop.stop();
process.exit(0);
