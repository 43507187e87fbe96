import { JunctionError, type Logger, type Tracing } from "@junction/platform";
import { Code } from "@connectrpc/connect";
import type { Caller, Watched } from "./deadline-watch.ts";
import { proxyErrors } from "./proxy-errors.ts";

/** The caller went away; nobody is left to answer (499 in the access log). */
export const clientGone = () =>
  new JunctionError("client_closed_request", "The client closed the request.", Code.Canceled);

/**
 * One upstream attempt, resolved when the response headers arrive. Redirects are handed to the
 * caller, never followed: following one would carry the connection's token to wherever it points.
 * `decompress` is Nango's `Decompress` (Bun's fetch decompresses unless told not to). A body is sent
 * as it is: bytes, or a stream sent once (`duplex: "half"`).
 *
 * Not an async function: the proxy handler awaits the promise in its own frame (one frame per request
 * on the hot path, not two), with `deadlines.watch(controller, ...)` around it and `attemptFailure` in
 * its catch.
 */
export function fetchUpstream(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | ReadableStream<Uint8Array> | null,
  decompress: boolean,
  controller: AbortController,
): Promise<Response> {
  // Each key only when it says something: fetch reads every key of its options.
  const init: Record<string, unknown> = { method, headers, signal: controller.signal, redirect: "manual", decompress };
  if (body !== null) {
    init.body = body;
    if (!(body instanceof Uint8Array)) init.duplex = "half";
  }
  return fetch(url, init as RequestInit);
}

/**
 * `fetchUpstream` in a client span (no URL: its query may hold a key), for a process that traces; out
 * of the engine's request closure, so the untraced hot path does not carry it.
 */
export function tracedFetchUpstream(
  tracing: Tracing,
  integration: string,
  attempt: number,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | ReadableStream<Uint8Array> | null,
  call: { decompress: boolean; controller: AbortController },
): Promise<Response> {
  return tracing.span(
    `upstream ${method}`,
    { "http.request.method": method, "junction.integration": integration, attempt },
    async (span) => {
      const answer = await fetchUpstream(url, method, headers, body, call.decompress, call.controller);
      span.setAttribute("http.response.status_code", answer.status);
      return answer;
    },
    { kind: "client" },
  );
}

/**
 * The error an attempt failed with, as the caller gets it: 504 `upstream_timeout` when `deadline`
 * fired, `client_closed_request` when the caller left, 502 `upstream_unreachable` naming the host
 * (never the path or query) when nothing was received, or saying the answer broke off when it
 * failed while read ahead (`answered`). Logged at warn.
 */
export function attemptFailure(
  err: unknown,
  url: string,
  timeoutMs: number,
  deadline: Watched,
  caller: Caller,
  answered: boolean,
  logger: Logger,
): JunctionError {
  const host = hostOf(url);
  if (deadline.timedOut()) {
    logger.warn("upstream timed out", { host, timeoutMs });
    return proxyErrors.timeout(host, timeoutMs);
  }
  if (caller.signal.aborted) return clientGone();
  if (answered) {
    logger.warn("upstream broke off its answer", { host, error: errorCode(err) });
    return proxyErrors.brokeOff(host);
  }
  logger.warn("upstream unreachable", { host, error: errorCode(err) });
  return proxyErrors.unreachable(host);
}

/** Whether a failed attempt may be tried again (the upstream never answered). */
export function isUpstreamFailure(err: unknown): boolean {
  return err instanceof JunctionError && (err.code === "upstream_unreachable" || err.code === "upstream_timeout");
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the upstream";
  }
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : err instanceof Error ? err.name : "unknown";
}
