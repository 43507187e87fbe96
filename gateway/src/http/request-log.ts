import type { Logger, MetricsRegistry } from "@junction/platform";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Records one answered request: its metrics (by route pattern) and its request log line. */
export type RequestRecorder = (
  method: string,
  routePattern: string,
  status: number,
  started: number,
  requestId: string,
  path: string,
) => void;

/** The gateway's request metrics and log. The route's pattern labels the metrics, never the path: it holds ids. */
export function requestRecorder(metrics: MetricsRegistry, logger: Logger): RequestRecorder {
  const requests = metrics.counter(
    "junction_http_requests_total",
    "Gateway requests by method, route pattern and status.",
    ["method", "route", "status"],
  );
  const latency = metrics.histogram(
    "junction_http_request_seconds",
    "Gateway time to the answer's headers, by method and route pattern.",
    ["method", "route"],
  );
  return (method, routePattern, status, started, requestId, path) => {
    const ms = performance.now() - started;
    // An unknown method names no route either: a client cannot make a new series per request.
    const methodLabel = routePattern === "unmatched" && !KNOWN_METHODS.has(method) ? "other" : method;
    requests.inc(methodLabel, routePattern, String(status));
    latency.observe(ms / 1000, methodLabel, routePattern);
    logger.info("request", { requestId, method, path: loggedPath(path), status, ms: Math.round(ms * 100) / 100 });
  };
}

/**
 * The path as the request log writes it: an MCP URL's id (who holds it may ask its end user's consent)
 * cut to its first characters, enough to tell URLs apart.
 */
export function loggedPath(path: string): string {
  const at = path.indexOf("/mcp/u/mcpu_");
  if (at < 0) return path;
  const start = at + "/mcp/u/".length;
  const end = path.indexOf("/", start);
  return `${path.slice(0, start + 12)}…${end < 0 ? "" : path.slice(end)}`;
}
