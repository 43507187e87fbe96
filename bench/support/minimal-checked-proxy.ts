/**
 * A reference point for the proxy benchmark, not a product: the smallest proxy one could write on Bun
 * that still does what the spec's proxy rules ask of every request, and nothing more. Per request it:
 * - checks the secret key (`Authorization: Bearer`, one Map lookup) and the two required headers;
 * - refuses unsafe paths (dot segments, encoded dots, backslashes, `//`, `@`) with one regular expression;
 * - reads the caller's headers once, drops hop-by-hop and its own ones, refuses CR/LF/NUL in values,
 *   applies `Nango-Proxy-*` overrides, injects the connection's token (after the refresh rule's expiry
 *   check: a token expiring within 5 minutes would be refreshed first; the benchmark's never is);
 * - calls the upstream with a timeout (one AbortController per call, swept by Junction's DeadlineWatch) and
 *   redirects handed back, not followed;
 * - strips hop-by-hop headers from the answer and passes fetch's response on as it is.
 * No request id, no request log, no router, no retries, no services: what a proxy doing the issue's
 * checks costs at least on this machine.
 *
 * `minimalCheckedProxy` is also served inside Junction's embedded process (BENCH_BREAKDOWN=1,
 * bench/support/breakdown-server.ts), to show what that process alone costs the same code.
 *
 *   bun bench/support/minimal-checked-proxy.ts <port> <upstream base URL> <secret key> <integration> <connection id> [--with-libraries]
 * `--with-libraries` first loads what the architecture makes every Junction process load and nothing of
 * Junction's own code: `@bufbuild/protobuf` with Junction's generated contracts, `@connectrpc/connect` and zod
 * (BENCH_BREAKDOWN=1's `floor-libraries`, to tell the libraries' heap from Junction's modules').
 */
import { join } from "node:path";
import { DeadlineWatch } from "@junction/upstream-proxy/deadline-watch";

const REFRESH_MARGIN_MS = 5 * 60_000;
const TIMEOUT_MS = 30_000;

const HOP_BY_HOP = new Set(
  "connection keep-alive proxy-connection proxy-authenticate proxy-authorization te trailer transfer-encoding upgrade host content-length expect".split(
    " ",
  ),
);
const OWN = new Set(
  "authorization provider-config-key connection-id retries retry-on base-url-override decompress x-request-id".split(
    " ",
  ),
);
const HOP_BY_HOP_RESPONSE =
  "connection keep-alive proxy-connection proxy-authenticate te trailer transfer-encoding upgrade".split(" ");
const UNSAFE_PATH = /\.\.|%2e|\\|%5c|\/\/|@|%40/i;
const UNSAFE_VALUE = /[\r\n\0]/;

/** Per-call deadlines: Junction's own sweep (one timer for every pending call, not one per call). */
const deadlines = new DeadlineWatch();

const fail = (status: number, code: string) => Response.json({ error: { code } }, { status });

/** The fetch handler of a proxy with one secret key and one connection to `upstream`. */
export function minimalCheckedProxy(
  upstream: string,
  secretKey: string,
  integration: string,
  connectionId: string,
): (req: Request) => Promise<Response> {
  /** Secret key → environment; (environment, integration, connection) → upstream and token. */
  const environments = new Map([[`Bearer ${secretKey}`, "env_1"]]);
  const connections = new Map([
    [
      `env_1\n${integration}\n${connectionId}`,
      { base: upstream, token: "Bearer upstream-token", expiresAt: Date.now() + 3_600_000 },
    ],
  ]);
  return async (req) => {
    const incoming = req.headers.toJSON() as Record<string, string>;
    const environment = environments.get(incoming.authorization ?? "");
    if (environment === undefined) return fail(401, "unauthorized");
    const key = incoming["provider-config-key"];
    const id = incoming["connection-id"];
    if (!key) return fail(400, "missing_provider_config_key");
    if (!id) return fail(400, "missing_connection_id");
    const url = req.url;
    const pathStart = url.indexOf("/proxy/", 8);
    const queryStart = url.indexOf("?", pathStart);
    const path = url.slice(pathStart + 6, queryStart < 0 ? undefined : queryStart);
    if (UNSAFE_PATH.test(path)) return fail(400, "invalid_proxy_path");
    const connection = connections.get(`${environment}\n${key}\n${id}`);
    if (connection === undefined) return fail(404, "unknown_connection");
    if (connection.expiresAt - Date.now() < REFRESH_MARGIN_MS) return fail(424, "connection_refresh_failed");

    const headers: Record<string, string> = {};
    const overrides: [string, string][] = [];
    for (const name in incoming) {
      const value = incoming[name] as string;
      if (UNSAFE_VALUE.test(value)) return fail(400, "invalid_header_value");
      if (name.startsWith("nango-proxy-")) overrides.push([name.slice(12), value]);
      else if (!HOP_BY_HOP.has(name) && !OWN.has(name)) headers[name] = value;
    }
    headers.authorization = connection.token;
    for (const [name, value] of overrides) headers[name] = value;

    const controller = new AbortController();
    const deadline = deadlines.watch(controller, TIMEOUT_MS);
    try {
      const res = await fetch(`${connection.base}${path}${queryStart < 0 ? "" : url.slice(queryStart)}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? null : req.body,
        signal: controller.signal,
        redirect: "manual",
        decompress: false,
      } as RequestInit);
      for (const name of HOP_BY_HOP_RESPONSE) if (res.headers.has(name)) res.headers.delete(name);
      return res;
    } catch {
      return deadline.timedOut() ? fail(504, "upstream_timeout") : fail(502, "upstream_unreachable");
    } finally {
      deadline.done();
    }
  };
}

if (import.meta.main) {
  const [port, upstream, secretKey, integration, connectionId, load] = process.argv.slice(2) as string[];
  if (load === "--with-libraries") await loadLibraries();
  const server = Bun.serve({
    port: Number(port ?? 0),
    hostname: "127.0.0.1",
    fetch: minimalCheckedProxy(upstream as string, secretKey as string, integration as string, connectionId as string),
  });
  process.stdout.write(`listening ${server.port}\n`);
}

/** Loads the architecture's libraries and Junction's generated contracts, keeping them referenced. */
async function loadLibraries(): Promise<void> {
  const loaded: unknown[] = [await import("@connectrpc/connect"), await import("zod")];
  const contracts = new Bun.Glob("*/v1/*_pb.ts").scanSync(
    join(import.meta.dir, "../../packages/contracts/gen/junction"),
  );
  for (const file of contracts) loaded.push(await import(`@junction/contracts/${file.replace(/\.ts$/, "")}`));
  (globalThis as { benchLibraries?: unknown[] }).benchLibraries = loaded;
}
