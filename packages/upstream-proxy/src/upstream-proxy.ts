import { type Clock, type Logger, systemClock, type Tracing } from "@junction/platform";
import { checkBaseUrlOverride } from "./base-url-override.ts";
import { type ChannelCallReport, reportChannelCall } from "./channel-report.ts";
import { CHANNEL_BODY_LIMIT, channelCallOf, teeBounded } from "./channel-tap.ts";
import { DeadlineWatch } from "./deadline-watch.ts";
import { stripResponseHeaders, upstreamRequestHeaders } from "./forward-headers.ts";
import type { HeaderRecord } from "./header-record.ts";
import { dnsLookup, type HostLookup } from "@junction/platform/address-policy";
import type { UpstreamRequest } from "./proxy-controls.ts";
import { DEFAULT_PROXY_SETTINGS, type ProxySettings } from "./proxy-settings.ts";
import { readAhead, readsAhead } from "./read-ahead.ts";
import {
  type AttemptPlace,
  discard,
  keyOf,
  type RetryParts,
  retryAfterAnswer,
  retryAfterFailure,
} from "./attempt-retry.ts";
import type { OutgoingBody } from "./request-body.ts";
import { ResolveCache, type ResolvedUpstream, type ResolveKey } from "./resolve-cache.ts";
import { isRetryableStatus, retryBudget } from "./retry-policy.ts";
import { fetchUpstream, tracedFetchUpstream } from "./upstream-call.ts";
import { parseBase, type UpstreamBase, upstreamUrl, withAuthQuery } from "./upstream-url.ts";
import type { ProxyMetrics } from "./proxy-metrics.ts";

export interface UpstreamProxyOptions {
  /**
   * Clock for the resolve cache, Retry-After dates and the waits between attempts (the proxy service's
   * clock in one process). The upstream timeout is not on it: it is the wait for an answer in real time.
   */
  clock?: Clock;
  /** DNS for Base-Url-Override checks. */
  lookup?: HostLookup;
  /** Jitter source. */
  random?: () => number;
  /** Timeouts and retries (JUNCTION_PROXY_*, loadProxySettings); the defaults when absent. */
  settings?: ProxySettings;
  /** Where calls, upstream latencies, retries and refreshes are counted (proxyMetrics). */
  metrics?: ProxyMetrics;
  /** The process's tracing: a client span per upstream attempt (no URL: its query may hold a key). */
  tracing?: Tracing;
  /** Told how each request ended (the gateway's operations log of proxy calls). */
  observer?: ProxyCallObserver;
}

/**
 * Told once per request how it ended, on the engine's clock: `answered` with the status the caller gets (after
 * retries and a token refresh) once its headers are back, or `failed` with what the request throws. Called from
 * the request's own frame, so watching costs no promise or closure per request (a `then` around the engine's
 * promise cost six heap cells a request: docs/benchmarks.md, "End of the twenty-first session"). An
 * observer that throws is not heard: the request goes on as if unobserved.
 */
export interface ProxyCallObserver {
  answered(request: UpstreamRequest, caller: ProxyCaller, status: number, startedAtMs: number, endedAtMs: number): void;
  failed(request: UpstreamRequest, caller: ProxyCaller, err: unknown, startedAtMs: number, endedAtMs: number): void;
}

/** What the engine calls out to: the credential resolver and the channel registry's reporter. */
export interface UpstreamProxyDeps extends UpstreamProxyOptions {
  /**
   * A connection's upstream: base URL, headers to inject (its token), for how long it may be
   * reused. `forceRefresh` after the upstream refused the token with 401. Answers are cached by the engine.
   */
  resolve: (key: ResolveKey, forceRefresh: boolean) => Promise<ResolvedUpstream>;
  /** Receives a channel-creating or channel-stopping call seen in proxied traffic (never awaited). */
  reportChannelCall: (report: ChannelCallReport) => Promise<unknown>;
}

/**
 * Who calls, besides what (UpstreamRequest): a gateway's route context is one as it is, so a /proxy
 * request costs no copy of it.
 */
export interface ProxyCaller {
  environmentId: string;
  /** The caller's headers: all but hop-by-hop, Junction's own and the control ones go upstream. */
  headers: HeaderRecord;
  /** The caller's request: its abort signal is read only when an attempt waits long (see DeadlineWatch). */
  req: { readonly signal: AbortSignal };
  requestId: string;
  logger: Logger;
}

/** Responses that never have a body (RFC 9110 §6.4.1). */
const BODILESS_STATUS = new Set([204, 205, 304]);

/** What every request of one engine shares: the slow paths' parts, and the rest of its dependencies. */
interface Engine extends RetryParts {
  lookup: HostLookup;
  deadlines: DeadlineWatch;
  tracing: Tracing | undefined;
  reportChannelCall: UpstreamProxyDeps["reportChannelCall"];
  observer: ProxyCallObserver | undefined;
}

/**
 * The proxy engine (spec: Proxy rules 1–3): resolves the connection's upstream and token (cached),
 * checks a Base-Url-Override, then streams the caller's body up and the upstream's answer back,
 * retrying as the caller and the policy allow, and refreshing the token once after a 401. The /proxy
 * route and the scripts' `nango.proxy` are adapters that read their request into an UpstreamRequest.
 */
export function createUpstreamProxy(
  deps: UpstreamProxyDeps,
): (request: UpstreamRequest, caller: ProxyCaller) => Promise<Response> {
  const clock = deps.clock ?? systemClock;
  const engine: Engine = {
    clock,
    random: deps.random ?? Math.random,
    policy: deps.settings ?? DEFAULT_PROXY_SETTINGS,
    resolver: new ResolveCache(deps.resolve, () => clock.now()),
    metrics: deps.metrics,
    lookup: deps.lookup ?? dnsLookup,
    deadlines: new DeadlineWatch(),
    tracing: deps.tracing,
    reportChannelCall: deps.reportChannelCall,
    observer: deps.observer,
  };
  return (request, caller) => proxyRequest(engine, request, caller);
}

/**
 * One request, in one async frame (the helpers it calls are not async): each attempt waits for the
 * upstream's response headers (and, for a 2xx answer read ahead, for its first chunks) within the
 * policy's timeout; a caller that leaves meanwhile ends the wait within the deadline watch's sweep
 * (~0.1–0.2 s). The body then streams at the caller's pace (a caller that leaves cancels it). The engine's
 * observer, if any, is told from this frame how the request ended: its answer (answerCaller) or what it throws.
 */
async function proxyRequest(engine: Engine, request: UpstreamRequest, caller: ProxyCaller): Promise<Response> {
  const startedAtMs = engine.observer === undefined ? 0 : engine.clock.now();
  try {
    const { method, path } = request;
    const { resolver, policy, metrics } = engine;
    // A fresh cached answer is used without waiting on a promise.
    let resolved =
      resolver.peek(caller.environmentId, request.providerConfigKey, request.connectionId) ??
      (await resolver.get(keyOf(request, caller)));
    const base = request.baseUrlOverride ? await overriddenBase(engine, request, resolved) : resolved.base;
    const url = upstreamUrl(base, path, withAuthQuery(request.query, resolved.authQuery), request.plain);
    const channelCall = channelCallOf(method, path, resolved.channels);
    let body = typeof request.body === "function" ? await request.body() : request.body;
    let sentBody: Promise<Uint8Array> | undefined;
    if (channelCall !== undefined) [body, sentBody] = tapRequestBody(body);
    const sent = body.kind === "none" ? null : body.kind === "bytes" ? body.bytes : body.stream;
    const mayReadAhead = !request.decompress && channelCall === undefined;
    const budget = retryBudget(method, request, policy);
    let attempt = 0;
    let refreshed = false;
    for (;;) {
      let res: Response | undefined;
      // The answer's status, read once (each read of a Response's property is a call into Bun's native code).
      let status = 0;
      // Before the attempt: a header that cannot be sent is the caller's 400, not an upstream failure.
      const headers = outgoingHeaders(caller.headers, resolved, body);
      const controller = new AbortController();
      const deadline = engine.deadlines.watch(controller, policy.upstreamTimeoutMs, caller.req);
      const started = metrics === undefined ? 0 : performance.now();
      try {
        res = await send(engine, request, attempt, url, headers, sent, controller);
        status = res.status;
        metrics?.upstreamSeconds.observe((performance.now() - started) / 1000, request.providerConfigKey);
        if (mayReadAhead && readsAhead(res, method, status)) res = await readAhead(res);
      } catch (err) {
        const place: AttemptPlace = { request, caller, body, budget, attempt, refreshed, resolved };
        await retryAfterFailure(engine, place, err, url, deadline, res !== undefined);
        attempt++;
        continue;
      } finally {
        deadline.done();
      }
      // One token refresh and retry after a 401; retries of 429, 5xx and Retry-On statuses within the budget.
      if (status === 401 || isRetryableStatus(status, request.retryOn)) {
        const place: AttemptPlace = { request, caller, body, budget, attempt, refreshed, resolved };
        const next = await retryAfterAnswer(engine, place, res, status);
        if (next !== undefined) {
          ({ resolved, refreshed, attempt } = next);
          continue;
        }
      }
      return answerCaller(engine, request, caller, resolved, channelCall, sentBody, res, status, startedAtMs);
    }
  } catch (err) {
    tell(engine, request, caller, false, err, startedAtMs);
    throw err;
  }
}

/**
 * The request's end: the call counted, the caller's answer (teed and reported for a channel call), the observer
 * told. Its parts are arguments, not an object: nothing more is made per request.
 */
function answerCaller(
  engine: Engine,
  request: UpstreamRequest,
  caller: ProxyCaller,
  resolved: ResolvedUpstream,
  channelCall: ReturnType<typeof channelCallOf>,
  sentBody: Promise<Uint8Array> | undefined,
  res: Response,
  status: number,
  startedAtMs: number,
): Response {
  engine.metrics?.calls.inc(request.providerConfigKey, String(status));
  const answer =
    channelCall === undefined
      ? respond(res, status, request.method, request.decompress)
      : respondToChannelCall(engine, request, caller, resolved.provider, channelCall, res, status, sentBody);
  tell(engine, request, caller, true, status, startedAtMs);
  return answer;
}

/**
 * Tells the engine's observer, if any, how a request ended: `answered` with its status, or `failed` with what it
 * throws. An observer that throws is not heard: the request goes on (or throws its own error) as if unobserved.
 */
function tell(
  engine: Engine,
  request: UpstreamRequest,
  caller: ProxyCaller,
  answered: boolean,
  what: unknown,
  startedAtMs: number,
): void {
  const { observer } = engine;
  if (observer === undefined) return;
  const endedAtMs = engine.clock.now();
  try {
    if (answered) observer.answered(request, caller, what as number, startedAtMs, endedAtMs);
    else observer.failed(request, caller, what, startedAtMs, endedAtMs);
  } catch {
    // The observer's own failure.
  }
}

/** The base URL of a request with a Base-Url-Override, once the override is allowed. */
async function overriddenBase(
  engine: Engine,
  request: UpstreamRequest,
  resolved: ResolvedUpstream,
): Promise<UpstreamBase> {
  const allowed = { baseUrl: resolved.baseUrl, allowedHosts: resolved.allowedOverrideHosts };
  return parseBase(await checkBaseUrlOverride(request.baseUrlOverride as string, allowed, engine.lookup));
}

/** One attempt's fetch (in a client span when tracing is on): the promise, awaited by the request's frame. */
function send(
  engine: Engine,
  request: UpstreamRequest,
  attempt: number,
  url: string,
  headers: Record<string, string>,
  sent: Uint8Array | ReadableStream<Uint8Array> | null,
  controller: AbortController,
): Promise<Response> {
  const tracing = engine.tracing;
  const { method, decompress } = request;
  if (tracing === undefined) return fetchUpstream(url, method, headers, sent, decompress, controller);
  return tracedFetchUpstream(tracing, request.providerConfigKey, attempt, url, method, headers, sent, {
    decompress,
    controller,
  });
}

/** The answer to a channel-creating or channel-stopping call: teed, and reported once both sides are read. */
function respondToChannelCall(
  engine: Engine,
  request: UpstreamRequest,
  caller: ProxyCaller,
  provider: string,
  kind: Parameters<typeof reportChannelCall>[3]["kind"],
  res: Response,
  status: number,
  sentBody: Promise<Uint8Array> | undefined,
): Response {
  const channel = { provider, path: request.path, kind };
  const [response, received] = respondTapped(res, status, request.method, request.decompress);
  void reportChannelCall(engine.reportChannelCall, caller, keyOf(request, caller), channel, status, sentBody, received);
  return response;
}

function outgoingHeaders(
  incoming: HeaderRecord,
  resolved: ResolvedUpstream,
  body: OutgoingBody,
): Record<string, string> {
  const headers = upstreamRequestHeaders(incoming, resolved.headers);
  // A streamed body of known length keeps it, so the upstream gets no chunked upload it did not ask for.
  if (body.kind === "stream" && body.length !== null) headers["content-length"] = body.length;
  return headers;
}

/**
 * The caller's answer: the upstream's status, headers and body, streamed as they come. The upstream's
 * response is passed on as it is (its hop-by-hop headers removed), so its body is piped without a copy.
 */
function respond(res: Response, status: number, method: string, decompressed: boolean): Response {
  const headers = stripResponseHeaders(res.headers, decompressed);
  // `res.body` is not read on this path: reading it makes a JS stream of a body Bun can pipe natively.
  if (method === "HEAD" || BODILESS_STATUS.has(status)) {
    void discard(res);
    return new Response(null, { status, statusText: res.statusText, headers });
  }
  return res;
}

/** As `respond`, for a channel call: the body is teed, and its first bytes resolved as the second item. */
function respondTapped(
  res: Response,
  status: number,
  method: string,
  decompressed: boolean,
): [Response, Promise<Uint8Array>] {
  const response = respond(res, status, method, decompressed);
  if (response !== res || res.body === null) return [response, Promise.resolve(new Uint8Array(0))];
  const [pass, received] = teeBounded(res.body);
  const init = { status, statusText: res.statusText, headers: res.headers };
  return [new Response(pass, init), received];
}

function tapRequestBody(body: OutgoingBody): [OutgoingBody, Promise<Uint8Array>] {
  if (body.kind === "none") return [body, Promise.resolve(new Uint8Array(0))];
  if (body.kind === "bytes") {
    return [body, Promise.resolve(body.bytes.byteLength <= CHANNEL_BODY_LIMIT ? body.bytes : new Uint8Array(0))];
  }
  const [pass, copy] = teeBounded(body.stream);
  return [{ ...body, stream: pass }, copy];
}
