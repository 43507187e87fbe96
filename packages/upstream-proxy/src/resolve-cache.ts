import type { ResolveUpstreamResponse } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { type CacheEntry, ExpiringCache, SharedLoads } from "@junction/platform/expiring-cache";
import { type ChannelAdapter, providerAdapter } from "@junction/providers";
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
  /** The integration's provider. */
  provider: string;
  /** Its channel adapter, looked up once per answer (none: the provider has no channels). */
  channels: ChannelAdapter | undefined;
  /** Query parameters the credentials add upstream (an API key in the query), encoded; "" when none. */
  authQuery?: string;
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

type Entry = CacheEntry<string, ResolvedUpstream>;

/**
 * Answers of ResolveUpstream by (environment, integration, connection), reused until their
 * `cache_until_ms`, never after it. In the last REFRESH_AHEAD_MS of an answer that lived at least twice
 * that, the first request starts loading the next one and is served the current one meanwhile.
 * Concurrent misses of one key share one call, and so do concurrent forced refreshes after upstream
 * 401s: a burst of requests costs one token refresh, not one each. Failures are not kept (one in a load
 * ahead of time leaves the current answer in place until its end).
 *
 * The answers are the platform's expiring cache (its bound, ends and reload ahead); its entries are
 * also indexed in maps nested by environment, integration and connection, so that a hit (`peek`, every
 * proxied request) builds no key object or string.
 */
export class ResolveCache {
  private readonly answers: ExpiringCache<string, ResolvedUpstream>;
  private readonly index = new Map<string, Map<string, Map<string, Entry>>>();
  private readonly pending = new SharedLoads<string, ResolvedUpstream>();
  private readonly forcing = new SharedLoads<string, ResolvedUpstream>();

  constructor(
    private readonly fetch: Fetch,
    private readonly now: () => number,
  ) {
    this.answers = new ExpiringCache({
      maxEntries: MAX_ENTRIES,
      now,
      reloadAheadMs: REFRESH_AHEAD_MS,
      onEvict: (entry) => this.unindex(keyOf(entry.key)),
      reload: (entry) => this.loadAhead(entry.key),
    });
  }

  /**
   * The cached answer while fresh, without a promise or a key (the hot path), starting its successor's
   * load in its last second; undefined when `get` must load one.
   */
  peek(environmentId: string, providerConfigKey: string, connectionId: string): ResolvedUpstream | undefined {
    const hit = this.index.get(environmentId)?.get(providerConfigKey)?.get(connectionId);
    if (hit === undefined) return undefined;
    const now = this.now();
    if (hit.until <= now) return undefined;
    return this.answers.serve(hit, now);
  }

  /** The cached answer while fresh, otherwise a new one. */
  get(key: ResolveKey): Promise<ResolvedUpstream> {
    const hit = this.peek(key.environmentId, key.providerConfigKey, key.connectionId);
    if (hit !== undefined) return Promise.resolve(hit);
    const id = cacheKey(key);
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
    const current = this.answers.peek(id);
    if (current && !sameHeaders(current.value, stale) && current.until > this.now()) {
      return Promise.resolve(current.value);
    }
    this.remove(id, key);
    return this.forcing.get(id) ?? this.load(id, key, true, this.forcing);
  }

  /** Drops the cached answer of `key` (the upstream was unreachable with it). */
  forget(key: ResolveKey): void {
    this.remove(cacheKey(key), key);
  }

  /** Starts loading the successor of the answer of `id`, unless a load of its key is under way. */
  private loadAhead(id: string): void {
    if (this.pending.has(id) || this.forcing.has(id)) return;
    // A failure keeps the current answer until its end; the request after that loads and reports.
    this.load(id, keyOf(id), false, this.pending).catch(() => {});
  }

  private load(
    id: string,
    key: ResolveKey,
    force: boolean,
    into: SharedLoads<string, ResolvedUpstream>,
  ): Promise<ResolvedUpstream> {
    return into.start(id, () =>
      this.fetch(key, force).then((answer) => {
        // An ordinary load that was overtaken by a forced refresh must not bring the old token back.
        if (force || !this.forcing.has(id)) this.store(id, key, answer);
        return answer;
      }),
    );
  }

  private store(id: string, key: ResolveKey, answer: ResolvedUpstream): void {
    const entry = this.answers.set(id, answer, answer.cacheUntil);
    let integrations = this.index.get(key.environmentId);
    if (integrations === undefined) {
      integrations = new Map();
      this.index.set(key.environmentId, integrations);
    }
    let connections = integrations.get(key.providerConfigKey);
    if (connections === undefined) {
      connections = new Map();
      integrations.set(key.providerConfigKey, connections);
    }
    connections.set(key.connectionId, entry);
  }

  private remove(id: string, key: ResolveKey): void {
    this.answers.delete(id);
    this.unindex(key);
  }

  private unindex(key: ResolveKey): void {
    const integrations = this.index.get(key.environmentId);
    const connections = integrations?.get(key.providerConfigKey);
    if (integrations === undefined || connections === undefined) return;
    connections.delete(key.connectionId);
    if (connections.size > 0) return;
    integrations.delete(key.providerConfigKey);
    if (integrations.size === 0) this.index.delete(key.environmentId);
  }
}

function sameHeaders(a: ResolvedUpstream, b: ResolvedUpstream): boolean {
  const names = Object.keys(a.headers);
  return names.length === Object.keys(b.headers).length && names.every((n) => a.headers[n] === b.headers[n]);
}

/** Converts the RPC answer. */
export function toResolved(res: ResolveUpstreamResponse): ResolvedUpstream {
  return {
    baseUrl: res.baseUrl,
    base: parseBase(res.baseUrl),
    headers: res.headers,
    cacheUntil: Number(res.cacheUntilMs),
    allowedOverrideHosts: res.allowedOverrideHosts,
    provider: res.provider,
    channels: providerAdapter(res.provider)?.channels,
    authQuery: new URLSearchParams(res.query).toString(),
  };
}

function cacheKey(k: ResolveKey): string {
  // Header values cannot hold a line feed, so the parts cannot run into each other.
  return `${k.environmentId}\n${k.providerConfigKey}\n${k.connectionId}`;
}

/** The key a `cacheKey` was built from. */
function keyOf(id: string): ResolveKey {
  const [environmentId = "", providerConfigKey = "", connectionId = ""] = id.split("\n");
  return { environmentId, providerConfigKey, connectionId };
}
