import {
  type Logger,
  loadPort,
  type MetricsRegistry,
  metricsResponse,
  type ReadinessCheck,
  readyResponse,
} from "@junction/platform";

/** A service process's admin listener: /metrics, /ready and /health over HTTP/1.1 for scrapers and probes. */
export interface AdminServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** The variable naming a service process's admin port (its Connect port over h2c is not scrapeable). */
export const adminPortVariable = (name: string): string => `JUNCTION_${name.toUpperCase()}_ADMIN_PORT`;

/** The admin port: JUNCTION_<NAME>_ADMIN_PORT, or the service's port + 100; `chosen` when the variable set it. */
export function adminPort(
  env: Record<string, string | undefined>,
  name: string,
  servicePort: number,
): { port: number; chosen: boolean } {
  const chosen = Boolean(env[adminPortVariable(name)]);
  return { port: loadPort(env, `JUNCTION_${name.toUpperCase()}_ADMIN_`, servicePort + 100), chosen };
}

/**
 * Serves GET /metrics (the metrics token), GET /ready (what the process needs) and GET /health
 * (liveness) on `port` of `hostname`. A service's Connect port speaks h2c only, which Prometheus and
 * load balancers do not; this one speaks HTTP/1.1.
 */
export function serveAdmin(options: {
  port: { port: number; chosen: boolean };
  logger: Logger;
  hostname: string;
  metrics: MetricsRegistry;
  metricsToken: string | undefined;
  readiness: readonly ReadinessCheck[];
}): AdminServer | undefined {
  try {
    return listen(options, options.port.port);
  } catch (err) {
    // A port the operator chose must be free; the default one (port + 100) may be taken by another
    // program: the service runs on without its admin listener, and says so.
    if (options.port.chosen) throw err;
    options.logger.error("admin listener not started: set its port with the variable", {
      port: options.port.port,
      variable: "JUNCTION_<NAME>_ADMIN_PORT",
      error: err,
    });
    return undefined;
  }
}

function listen(options: Parameters<typeof serveAdmin>[0], port: number): AdminServer {
  const server = Bun.serve({
    port,
    hostname: options.hostname,
    fetch(req) {
      const { pathname } = new URL(req.url);
      if (req.method !== "GET") return new Response("Method not allowed.\n", { status: 405 });
      if (pathname === "/metrics") {
        return metricsResponse(options.metrics, options.metricsToken, req.headers.get("authorization"));
      }
      if (pathname === "/ready") return readyResponse(options.readiness);
      if (pathname === "/health") return Response.json({ result: "ok" });
      return Response.json(
        { error: { code: "not_found", message: "No route for this method and path." } },
        { status: 404 },
      );
    },
  });
  const bound = server.port as number;
  return { port: bound, url: `http://127.0.0.1:${bound}`, stop: () => server.stop(true) };
}
