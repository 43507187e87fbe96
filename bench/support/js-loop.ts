/**
 * The proxy's JavaScript alone: Junction's gateway (or the floor's handler) called in a loop with the
 * upstream `fetch` answered at once, 64 requests in flight, no sockets. Steadier than the load runs:
 * for telling a few hundred ns of per-request work apart.
 *   bun bench/support/js-loop.ts [junction|handler|floor|both] [requests]
 * (handler: the /proxy handler alone, without the gateway around it; both: junction and floor)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbedded } from "@junction/cli";
import { createLogger } from "@junction/platform";
import { createGateway } from "../../gateway/src/gateway.ts";
import { directProxyHandler } from "./direct-handler.ts";
import { minimalCheckedProxy } from "./minimal-checked-proxy.ts";
import { addConnection, CONNECTION, INTEGRATION, SECRET_KEY } from "./topologies.ts";

const which = process.argv[2] ?? "both";
const total = Number(process.argv[3] ?? 300_000);
const UPSTREAM = "http://127.0.0.1:9";
const SMALL = JSON.stringify({ kind: "calendar#calendarListEntry", id: "alice@example.com", primary: true });

const dataDir = mkdtempSync(join(tmpdir(), "junction-jsloop-"));
const junction = await startEmbedded({
  env: { JUNCTION_DATA_DIR: dataDir, JUNCTION_SECRET_KEY: SECRET_KEY },
  port: 0,
  hostname: "127.0.0.1",
  logger: createLogger({ sink: () => {} }),
});
await addConnection(junction.url, UPSTREAM);
const realFetch = globalThis.fetch;
globalThis.fetch = (async (input: string | URL | Request) => {
  if (String(input).startsWith(UPSTREAM))
    return new Response(SMALL, {
      headers: { "content-type": "application/json", date: "Tue, 24 Nov 2026 10:00:00 GMT" },
    });
  return realFetch(input as string);
}) as typeof fetch;

const discard = createLogger({ sink: () => {} });
const gateway = createGateway({
  clients: junction.clients,
  baseUrl: junction.baseUrl,
  // As in production: one JSON line per request, written to a sink that drops it.
  logger: createLogger({ sink: () => {} }),
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
const request = () => new Request("http://127.0.0.1:8080/proxy/small", { headers });

async function run(fetchOf: (req: Request) => Promise<Response>, n: number): Promise<number> {
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
  await Promise.all(Array.from({ length: 64 }, worker));
  return ((performance.now() - started) * 1000) / n;
}

const names = which === "both" ? ["junction", "floor"] : [which];
for (const name of names) await run(targets[name] as (req: Request) => Promise<Response>, 20_000);
const results: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < 5; round++) {
  for (const name of names)
    results[name]?.push(await run(targets[name] as (req: Request) => Promise<Response>, total / 5));
}
for (const name of names) {
  const sorted = [...(results[name] as number[])].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(9)} median ${sorted[2]?.toFixed(2)} µs/request  (rounds ${sorted.map((v) => v.toFixed(2)).join(" ")})`,
  );
}
await junction.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
