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
    if (logger.enabled("info")) logger.line("info", "request", requestLineFields(requestId, method, path, status, ms));
  };
}

/**
 * The request log line's fields, as JSON: the line `logger.info("request", { requestId, method, path,
 * status, ms })` writes, spelled out directly (one line per request; JSON.stringify was most of its cost).
 * The request id needs no escaping: the gateway makes it, or takes the caller's only when it matches
 * `[A-Za-z0-9_.-]{1,64}` (dispatch.ts).
 */
function requestLineFields(requestId: string, method: string, path: string, status: number, ms: number): string {
  const logged = loggedPath(path);
  const rounded = Math.round(ms * 100) / 100;
  if (needsEscape(method) || needsEscape(logged)) {
    return `"requestId":"${requestId}","method":${JSON.stringify(method)},"path":${JSON.stringify(logged)},"status":${status},"ms":${rounded}`;
  }
  return `"requestId":"${requestId}","method":"${method}","path":"${logged}","status":${status},"ms":${rounded}`;
}

/** Whether JSON.stringify would escape part of `text`: controls, the quote, the backslash, surrogates. */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
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
