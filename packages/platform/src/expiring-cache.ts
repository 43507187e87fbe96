/** One remembered value, its end, and when to start loading its successor. */
export interface CacheEntry<K, V> {
  readonly key: K;
  readonly value: V;
  /** Served while `until > now`, never after. */
  readonly until: number;
  /** From then on the value is due for a reload ahead of its end (Infinity: never, or already claimed). */
  reloadAt: number;
}

export interface ExpiringCacheOptions<K, V> {
  /** Entries kept at most; past it the oldest goes (a flood of distinct keys cannot grow the map). */
  maxEntries: number;
  now: () => number;
  /**
   * A value that lives at least twice this long is due for a reload this long before its end, so a
   * busy key never waits on its reload (0 or absent: never reloaded ahead).
   */
  reloadAheadMs?: number;
  /** Told of each entry the bound pushed out (for an index of the caller's over the same entries). */
  onEvict?: (entry: CacheEntry<K, V>) => void;
  /** Starts loading the successor of an entry due for its reload ahead (called by `serve`, once per entry). */
  reload?: (entry: CacheEntry<K, V>) => void;
}

const NEVER = Number.POSITIVE_INFINITY;
const noReload = () => {};

/**
 * The one bounded expiring cache of Junction: values kept until the end their producer gives them,
 * oldest out past `maxEntries`, an optional reload ahead of the end claimed by one caller. A hit
 * allocates nothing and awaits nothing. Concurrent loads of one key are shared with `SharedLoads`.
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, CacheEntry<K, V>>();
  private readonly reloadAheadMs: number;
  private readonly reload: (entry: CacheEntry<K, V>) => void;

  constructor(private readonly options: ExpiringCacheOptions<K, V>) {
    this.reloadAheadMs = options.reloadAheadMs ?? 0;
    this.reload = options.reload ?? noReload;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key` while fresh. */
  get(key: K, now: number = this.options.now()): V | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.until > now ? entry.value : undefined;
  }

  /** The entry of `key` while fresh. */
  fresh(key: K, now: number = this.options.now()): CacheEntry<K, V> | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.until > now ? entry : undefined;
  }

  /** The entry of `key`, fresh or not. */
  peek(key: K): CacheEntry<K, V> | undefined {
    return this.entries.get(key);
  }

  /** Remembers `value` until `until` (as the newest entry), pushing the oldest out when full. */
  set(key: K, value: V, until: number): CacheEntry<K, V> {
    if (this.entries.delete(key) === false && this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.values().next();
      if (!oldest.done) {
        this.entries.delete(oldest.value.key);
        this.options.onEvict?.(oldest.value);
      }
    }
    const ahead = this.reloadAheadMs;
    const reloadAt = ahead > 0 && until - this.options.now() >= 2 * ahead ? until - ahead : NEVER;
    const entry: CacheEntry<K, V> = { key, value, until, reloadAt };
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Whether `entry` is due for its reload ahead of its end; true once per entry, for the caller that
   * then starts the reload (the others keep being served the current value).
   */
  claimReload(entry: CacheEntry<K, V>, now: number): boolean {
    // Stored without a branch (see `serve`).
    const due = entry.reloadAt <= now;
    entry.reloadAt = due ? NEVER : entry.reloadAt;
    return due;
  }

  /**
   * The value of a fresh `entry`, served at `now`; the first call in the entry's reload-ahead margin also
   * starts its reload (`options.reload`), and the calls after it are served the current value meanwhile.
   *
   * Shaped for the JIT, as every hit runs it: inside the branch taken once per entry lifetime there is no
   * property read or write, only a call of a function read before it. JavaScriptCore optimises a hot caller
   * (the proxy's request path) before any entry was due; a property access it had never seen run there is
   * compiled as an exit, and the first reload would throw the caller's optimised code away and compile
   * it again (0.3–0.6 s of FTL per process for the proxy's request path).
   */
  serve(entry: CacheEntry<K, V>, now: number): V {
    const reload = this.reload;
    if (this.claimReload(entry, now)) reload(entry);
    return entry.value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Loads under way by key: concurrent callers of one key share one load; a finished load is forgotten. */
export class SharedLoads<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  /** The load of `key` under way, if any. */
  get(key: K): Promise<V> | undefined {
    return this.pending.get(key);
  }

  has(key: K): boolean {
    return this.pending.has(key);
  }

  /** The load of `key` under way, or a new one started with `load`. */
  run(key: K, load: () => Promise<V>): Promise<V> {
    const inFlight = this.pending.get(key);
    return inFlight ?? this.start(key, load);
  }

  /** Starts `load` as the load of `key`, even if another is under way (that one is no longer shared). */
  start(key: K, load: () => Promise<V>): Promise<V> {
    const loading = load().finally(() => {
      if (this.pending.get(key) === loading) this.pending.delete(key);
    });
    this.pending.set(key, loading);
    return loading;
  }
}
