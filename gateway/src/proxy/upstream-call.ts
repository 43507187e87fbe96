import { JunctionError, type Logger } from "@junction/platform";
import { Code } from "@connectrpc/connect";
import type { DeadlineWatch } from "./deadline-watch.ts";
import { proxyErrors } from "./proxy-errors.ts";
import { readAhead, readsAhead } from "./read-ahead.ts";

export interface UpstreamAttempt {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | ReadableStream<Uint8Array> | null;
  decompress: boolean;
  timeoutMs: number;
  /** The caller's request: whether it has gone away is read only when the attempt failed. */
  caller: Request;
  /** Whether a large answer may be read ahead (`readAhead`): not when it is decompressed or tapped. */
  readAhead: boolean;
}

/** The caller went away; nobody is left to answer (499 in the access log). */
export const clientGone = () =>
  new JunctionError("client_closed_request", "The client closed the request.", Code.Canceled);

/**
 * One upstream attempt, resolved when the response headers arrive. Redirects are handed to the
 * caller, never followed: following one would carry the connection's token to wherever it points.
 * The timeout covers the wait for the headers (and, for a 2xx answer read ahead, for its first
 * chunks); a caller that leaves meanwhile ends the wait within the deadline watch's sweep
 * (~0.1–0.2 s). The body then streams at the caller's pace (a caller that leaves cancels it).
 * Throws 504 `upstream_timeout`, 502 `upstream_unreachable` (naming the host, never the path or
 * query; also when an answer broke off while read ahead), or `client_closed_request`.
 */
export async function callUpstream(
  attempt: UpstreamAttempt,
  deadlines: DeadlineWatch,
  logger: Logger,
): Promise<Response> {
  const controller = new AbortController();
  const deadline = deadlines.watch(controller, attempt.timeoutMs, attempt.caller);
  let res: Response | undefined;
  try {
    res = await fetch(attempt.url, {
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body,
      signal: controller.signal,
      redirect: "manual",
      decompress: attempt.decompress,
      duplex: "half",
    } as RequestInit);
    return attempt.readAhead && readsAhead(res, attempt.method) ? await readAhead(res) : res;
  } catch (err) {
    const host = hostOf(attempt.url);
    if (deadline.timedOut()) {
      logger.warn("upstream timed out", { host, timeoutMs: attempt.timeoutMs });
      throw proxyErrors.timeout(host, attempt.timeoutMs);
    }
    if (attempt.caller.signal.aborted) throw clientGone();
    if (res !== undefined) {
      logger.warn("upstream broke off its answer", { host, error: errorCode(err) });
      throw proxyErrors.brokeOff(host);
    }
    logger.warn("upstream unreachable", { host, error: errorCode(err) });
    throw proxyErrors.unreachable(host);
  } finally {
    deadline.done();
  }
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
