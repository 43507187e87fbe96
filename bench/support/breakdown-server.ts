/**
 * For the benchmark's cost breakdown (BENCH_BREAKDOWN=1): Junction's embedded services in one process,
 * served without part of the gateway's per-request pipeline, to show where the proxy's CPU goes.
 *   bun bench/support/breakdown-server.ts <port> <upstream base URL> <mode>
 * handler-only: the /proxy handler alone (no secret-key check, request id, router or request log).
 * handler-request-id: the same, plus the X-Request-Id response header the gateway adds when the caller sent
 *   one (on Bun 1.4.5, any header added to fetch's response takes it off Bun's native body-piping path).
 * gateway-no-log: the whole gateway, with its request log discarded in the process.
 * gateway-parts: the same gateway with the parts `junction start` adds put back, as BREAKDOWN_PARTS names
 *   them (comma-separated): `log` (the request log to stdout, as `junction start` writes it), `ops` (the
 *   process's operations recorder: the proxy calls' tally), `serve` (served as `junction start` serves it:
 *   serveGateway with the WebSocket check, behind the bound port's indirection). The allocator settings
 *   of `junction start` are given in the environment (MIMALLOC_PURGE_HOLES=0, MIMALLOC_PURGE_DELAY=1000).
 * floor-in-junction: not Junction's handler but the floor's (bench/support/minimal-checked-proxy.ts),
 *   served by this process with Junction's services started beside it: what the process alone costs.
 * floor-junction-modules: the floor's handler in a process that has loaded Junction's modules (protobuf,
 *   Connect, zod, every service's code) but started nothing: what the loaded code alone costs (its heap).
 *   Its counterpart with the libraries alone is the floor's own `--with-libraries` (floor-libraries).
 * Not a way to run Junction: the handler-only server checks no secret key.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbedded } from "@junction/cli";
import { createLogger } from "@junction/platform";
import { createGateway, type Gateway } from "../../gateway/src/gateway.ts";
import { serveGateway } from "../../gateway/src/serve.ts";
import { directProxyHandler } from "./direct-handler.ts";
import { minimalCheckedProxy } from "./minimal-checked-proxy.ts";
import { addConnection, CONNECTION, INTEGRATION, SECRET_KEY } from "./topologies.ts";

const [port, upstream, mode] = [Number(process.argv[2]), process.argv[3] as string, process.argv[4]];
const discard = createLogger({ sink: () => {} });
const floor = () => minimalCheckedProxy(upstream, SECRET_KEY, INTEGRATION, CONNECTION);
// floor-junction-modules: the modules above are loaded (imports run before this line); nothing is started.
const parts = new Set((process.env.BREAKDOWN_PARTS ?? "").split(",").filter((p) => p !== ""));
let gateway: Gateway | undefined;
const served = mode === "floor-junction-modules" ? { fetch: floor(), stop: async () => {} } : await startJunction();
if (gateway !== undefined && parts.has("serve")) {
  const g = gateway;
  serveGateway(
    { fetch: (req) => g.fetch(req), upgrade: (req, srv) => g.upgrade(req, srv) },
    { port, hostname: "127.0.0.1" },
  );
} else Bun.serve({ port, hostname: "127.0.0.1", fetch: served.fetch });
process.stdout.write(`listening ${port}\n`);
process.on("SIGTERM", async () => {
  await served.stop();
  process.exit(0);
});

/** Junction's embedded services, and the fetch handler of the mode served beside them. */
async function startJunction(): Promise<{ fetch: (req: Request) => Promise<Response>; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "junction-bench-"));
  const junction = await startEmbedded({
    env: {
      // The process's own JUNCTION_* settings first (a target's `+{…}` in thread-ab.ts), then the benchmark's.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("JUNCTION_"))),
      JUNCTION_DATA_DIR: dataDir,
      JUNCTION_SECRET_KEY: SECRET_KEY,
      JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    },
    port: 0,
    hostname: "127.0.0.1",
    logger: discard,
  });
  await addConnection(junction.url, upstream);
  const environmentId = (await junction.clients.connection.getEnvironment({})).environment?.id ?? "";
  const stop = async () => {
    await junction.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  if (mode === "handler-only" || mode === "handler-request-id") {
    const handler = directProxyHandler({
      clients: junction.clients,
      baseUrl: junction.baseUrl,
      environmentId,
      logger: discard,
    });
    const withId = mode === "handler-request-id";
    const fetch = async (req: Request) => {
      const res = await handler(req);
      if (withId) res.headers.set("x-request-id", "req_bench");
      return res;
    };
    return { fetch, stop };
  }
  if (mode === "floor-in-junction") return { fetch: floor(), stop };
  if (mode === "gateway-no-log") {
    return {
      fetch: createGateway({ clients: junction.clients, baseUrl: junction.baseUrl, logger: discard }).fetch,
      stop,
    };
  }
  if (mode === "gateway-parts") {
    gateway = createGateway({
      clients: junction.clients,
      baseUrl: junction.baseUrl,
      logger: parts.has("log") ? createLogger().child({ component: "gateway" }) : discard,
      ...(parts.has("ops") ? { operations: junction.operations } : {}),
    });
    return { fetch: gateway.fetch, stop };
  }
  throw new Error(`unknown mode ${mode}`);
}
