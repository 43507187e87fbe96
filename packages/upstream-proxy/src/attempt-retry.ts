import type { Clock, Logger } from "@junction/platform";
import type { Watched } from "./deadline-watch.ts";
import type { UpstreamRequest } from "./proxy-controls.ts";
import type { ProxyMetrics } from "./proxy-metrics.ts";
import type { ProxySettings } from "./proxy-settings.ts";
import { isReplayable, type OutgoingBody } from "./request-body.ts";
import type { ResolveCache, ResolvedUpstream, ResolveKey } from "./resolve-cache.ts";
import { backoffDelay, isRetryableStatus, retryAfterDelay } from "./retry-policy.ts";
import { attemptFailure, clientGone, isUpstreamFailure } from "./upstream-call.ts";

/**
 * The engine's slow paths: what happens after an attempt that failed or got an answer to retry. They
 * live out of the request's function (proxyRequest, upstream-proxy.ts) on purpose: the JIT compiles it with
 * everything it inlines, and a closure holding these paths took its optimising compiler 0.3–0.6 s, twice
 * per process (docs/benchmarks.md, "Proxy small calls: the profile"). Almost no request comes here.
 */
export interface RetryParts {
  clock: Clock;
  random: () => number;
  policy: ProxySettings;
  resolver: ResolveCache;
  metrics: ProxyMetrics | undefined;
}

/** Who calls (a ProxyCaller, as far as the slow paths read it). */
export interface RetryCaller {
  environmentId: string;
  req: { readonly signal: AbortSignal };
  requestId: string;
  logger: Logger;
}

/** One attempt's place in its request: its number, the retry budget, what it sent, whether it refreshed. */
export interface AttemptPlace {
  request: UpstreamRequest;
  caller: RetryCaller;
  body: OutgoingBody;
  budget: number;
  attempt: number;
  refreshed: boolean;
  resolved: ResolvedUpstream;
}

/** What the next attempt uses, when there is one. */
export interface NextAttempt {
  resolved: ResolvedUpstream;
  refreshed: boolean;
  /** A retry after a refresh is not counted against the budget; one after a retryable status is. */
  attempt: number;
}

/**
 * After an attempt that got no answer (or one broken off while read ahead): resolves once the backoff
 * passed when the request is to be tried again, throws the caller's error otherwise. An unreachable
 * upstream may be a base URL the operator has since changed: the next request resolves again.
 */
export async function retryAfterFailure(
  parts: RetryParts,
  place: AttemptPlace,
  err: unknown,
  url: string,
  deadline: Watched,
  answered: boolean,
): Promise<void> {
  const { request, caller } = place;
  const failure = attemptFailure(
    err,
    url,
    parts.policy.upstreamTimeoutMs,
    deadline,
    caller.req,
    answered,
    caller.logger,
  );
  if (isUpstreamFailure(failure)) parts.resolver.forget(keyOf(request, caller));
  if (!isUpstreamFailure(failure) || place.attempt >= place.budget || !isReplayable(place.body)) {
    parts.metrics?.calls.inc(request.providerConfigKey, "error");
    throw failure;
  }
  parts.metrics?.retries.inc(request.providerConfigKey, "network");
  await pause(parts.clock, backoffDelay(place.attempt, parts.policy, parts.random), caller.req.signal);
}

/**
 * After an answer of status 401 or a retryable status: the token is refreshed once after a 401 (and the
 * call retried when its body can be sent again; a streamed one cannot: the 401 goes back and the refreshed
 * token serves the next request); a retryable status within the budget waits (Retry-After, or the backoff)
 * and retries. The next attempt's token and refresh flag, or undefined: this answer goes to the caller.
 */
export async function retryAfterAnswer(
  parts: RetryParts,
  place: AttemptPlace,
  res: Response,
  status: number,
): Promise<NextAttempt | undefined> {
  const { request, caller, body } = place;
  if (status === 401 && !place.refreshed) {
    const key = keyOf(request, caller);
    parts.metrics?.refreshesAfter401.inc(request.providerConfigKey);
    if (isReplayable(body)) {
      await discard(res);
      const resolved = await parts.resolver.refresh(key, place.resolved);
      return { resolved, refreshed: true, attempt: place.attempt };
    }
    refreshLater(parts.resolver, key, place.resolved, caller.logger);
  }
  if (place.attempt < place.budget && isReplayable(body) && isRetryableStatus(status, request.retryOn)) {
    const wait =
      retryAfterDelay(res.headers.get("retry-after"), parts.clock.now(), parts.policy) ??
      backoffDelay(place.attempt, parts.policy, parts.random);
    caller.logger.info("retrying upstream", {
      requestId: caller.requestId,
      status,
      attempt: place.attempt,
      waitMs: wait,
    });
    parts.metrics?.retries.inc(request.providerConfigKey, "status");
    await discard(res);
    await pause(parts.clock, wait, caller.req.signal);
    return { resolved: place.resolved, refreshed: place.refreshed || status === 401, attempt: place.attempt + 1 };
  }
  return undefined;
}

/** The resolve cache's key of a request (made only off the hot path: a cache hit needs none). */
export function keyOf(request: UpstreamRequest, caller: RetryCaller): ResolveKey {
  return {
    environmentId: caller.environmentId,
    providerConfigKey: request.providerConfigKey,
    connectionId: request.connectionId,
  };
}

/** Refreshes the token for the next request, without waiting (the handler keeps no closure for it). */
function refreshLater(resolver: ResolveCache, key: ResolveKey, stale: ResolvedUpstream, logger: Logger): void {
  resolver.refresh(key, stale).catch((err) => logger.warn("token refresh after 401 failed", { error: err }));
}

/** Lets go of a response that will not be passed on, so its connection can be reused. */
export async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // Already closed.
  }
}

/** Waits between attempts on `clock`; gives up when the caller goes away. */
function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(clientGone());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.cancel();
      reject(clientGone());
    };
    const timer = clock.setTimer(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
