import type { CallPolicy, ResolveUpstreamResponse } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { parseBase, type UpstreamBase } from "./upstream-url.ts";

/** A ResolveUpstream answer as the gateway uses it. */
export interface ResolvedUpstream {
  baseUrl: string;
  /** `baseUrl`, parsed. */
  base: UpstreamBase;
  headers: Readonly<Record<string, string>>;
  /** Reusable until then (the proxy service's clock, Unix ms). */
  cacheUntil: number;
  allowedOverrideHosts: readonly string[];
  policy: CallPolicy;
  observeChannelCalls: boolean;
}

export interface ResolveKey {
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
}

type Fetch = (key: ResolveKey, forceRefresh: boolean) => Promise<ResolvedUpstream>;

/** Cached answers at most; past it the oldest go first. */
const MAX_ENTRIES = 10_000;
/**
 * A cached answer this close to its end is loaded again in the background while it is still served, so
 * a busy connection never waits on a reload (every request arriving meanwhile would wait with it).
 */
export const REFRESH_AHEAD_MS = 1_000;

/** A cached answer, and when to start loading its successor (never, for an answer too short-lived). */
interface Entry {
  answer: ResolvedUpstream;
  refreshAt: number;
}

/**
 * Answers of ResolveUpstream by (environment, integration, connection), reused until their
 * `cache_until_ms`, never after it. In the last REFRESH_AHEAD_MS of an answer that lived at least twice
 * that, the first request starts loading the next one and is served the current one meanwhile.
 * Concurrent misses of one key share one call, and so do concurrent forced refreshes after upstream
 * 401s: a burst of requests costs one token refresh, not one each. Failures are not kept (one in a load
 * ahead of time leaves the current answer in place until its end).
 */
export class ResolveCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<ResolvedUpstream>>();
  private readonly forcing = new Map<string, Promise<ResolvedUpstream>>();

  constructor(
    private readonly fetch: Fetch,
    private readonly now: () => number,
  ) {}

  /** The cached answer while fresh, without a promise (the hot path); undefined when `get` must load one. */
  peek(key: ResolveKey): ResolvedUpstream | undefined {
    return this.fresh(cacheKey(key), key);
  }

  /** The cached answer of `id` while fresh (starting its successor's load in its last second). */
  private fresh(id: string, key: ResolveKey): ResolvedUpstream | undefined {
    const hit = this.entries.get(id);
    if (hit === undefined) return undefined;
    const now = this.now();
    if (hit.answer.cacheUntil <= now) return undefined;
    if (hit.refreshAt <= now) this.loadAhead(id, key, hit);
    return hit.answer;
  }

  /** The cached answer while fresh, otherwise a new one. */
  get(key: ResolveKey): Promise<ResolvedUpstream> {
    const id = cacheKey(key);
    const hit = this.fresh(id, key);
    if (hit !== undefined) return Promise.resolve(hit);
    const inFlight = this.forcing.get(id) ?? this.pending.get(id);
    if (inFlight) return inFlight;
    return this.load(id, key, false, this.pending);
  }

  /**
   * A fresh answer after the upstream refused `stale` with 401: the token is refreshed, unless another
   * request already got a different one.
   */
  refresh(key: ResolveKey, stale: ResolvedUpstream): Promise<ResolvedUpstream> {
    const id = cacheKey(key);
    const current = this.entries.get(id)?.answer;
    if (current && !sameHeaders(current, stale) && current.cacheUntil > this.now()) return Promise.resolve(current);
    this.entries.delete(id);
    return this.forcing.get(id) ?? this.load(id, key, true, this.forcing);
  }

  /** Drops the cached answer of `key` (the upstream was unreachable with it). */
  forget(key: ResolveKey): void {
    this.entries.delete(cacheKey(key));
  }

  /** Starts loading the successor of `hit` (once per answer), unless a load of the key is under way. */
  private loadAhead(id: string, key: ResolveKey, hit: Entry): void {
    hit.refreshAt = Number.POSITIVE_INFINITY;
    if (this.pending.has(id) || this.forcing.has(id)) return;
    // A failure keeps the current answer until its end; the request after that loads and reports.
    this.load(id, key, false, this.pending).catch(() => {});
  }

  private load(
    id: string,
    key: ResolveKey,
    force: boolean,
    into: Map<string, Promise<ResolvedUpstream>>,
  ): Promise<ResolvedUpstream> {
    const loading = this.fetch(key, force)
      .then((answer) => {
        // An ordinary load that was overtaken by a forced refresh must not bring the old token back.
        if (force || !this.forcing.has(id)) this.store(id, answer);
        return answer;
      })
      .finally(() => into.delete(id));
    into.set(id, loading);
    return loading;
  }

  private store(id: string, answer: ResolvedUpstream): void {
    if (!this.entries.has(id) && this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const now = this.now();
    const lifetime = answer.cacheUntil - now;
    const refreshAt =
      lifetime >= 2 * REFRESH_AHEAD_MS ? answer.cacheUntil - REFRESH_AHEAD_MS : Number.POSITIVE_INFINITY;
    this.entries.set(id, { answer, refreshAt });
  }
}

function sameHeaders(a: ResolvedUpstream, b: ResolvedUpstream): boolean {
  const names = Object.keys(a.headers);
  return names.length === Object.keys(b.headers).length && names.every((n) => a.headers[n] === b.headers[n]);
}

/** Converts the RPC answer. */
export function toResolved(res: ResolveUpstreamResponse): ResolvedUpstream {
  if (!res.policy) throw new Error("ResolveUpstream answered without a call policy");
  return {
    baseUrl: res.baseUrl,
    base: parseBase(res.baseUrl),
    headers: res.headers,
    cacheUntil: Number(res.cacheUntilMs),
    allowedOverrideHosts: res.allowedOverrideHosts,
    policy: res.policy,
    observeChannelCalls: res.observeChannelCalls,
  };
}

function cacheKey(k: ResolveKey): string {
  // Header values cannot hold a line feed, so the parts cannot run into each other.
  return `${k.environmentId}\n${k.providerConfigKey}\n${k.connectionId}`;
}
