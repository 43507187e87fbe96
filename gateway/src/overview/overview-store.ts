import type { Database } from "bun:sqlite";
import { migrate } from "@junction/platform";
import type { OverviewSeries } from "./overview-readings.ts";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** Minute buckets are kept a day (and one more hour, so the day's first points are whole). */
export const MINUTE_RETENTION_MS = 25 * HOUR_MS;
/** Hour buckets are kept eight days (a week, and the day it started). */
export const HOUR_RETENTION_MS = 8 * 24 * HOUR_MS;

/** One bucket's count of one series and label. */
export interface BucketRow {
  startMs: number;
  series: OverviewSeries;
  label: string;
  value: number;
}

/** Where the overview's buckets are kept: added to as samples come, read per period, pruned to retention. */
export interface OverviewStore {
  /** Adds each delta to its minute bucket and its hour bucket of `atMs`, in one transaction. */
  add(atMs: number, deltas: ReadonlyMap<string, number>): Promise<void>;
  /** The buckets of `resolutionMs` (MINUTE_MS or HOUR_MS) starting in [fromMs, toMs). */
  read(resolutionMs: number, fromMs: number, toMs: number): Promise<BucketRow[]>;
  /** Forgets the buckets past their retention at `nowMs`. */
  prune(nowMs: number): Promise<void>;
  /**
   * Takes or renews the lease on sampling the service processes for `holder`, until `nowMs + leaseMs`:
   * true when `holder` holds it (it did, or the last holder's lease ran out). One atomic write, so that of
   * the gateways asking at once exactly one holds it.
   */
  claimSampling(holder: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` holds it (a gateway stopping), so that another takes it at once. */
  releaseSampling(holder: string): Promise<void>;
}

/** The one lease's key: the service processes' sampling. */
export const SAMPLING_LEASE = "services";

/** A gateway that keeps no overview (a test's): every period is empty. */
export const NO_OVERVIEW: OverviewStore = {
  add: async () => undefined,
  read: async () => [],
  prune: async () => undefined,
  claimSampling: async () => true,
  releaseSampling: async () => undefined,
};

const MIGRATIONS = [
  `CREATE TABLE overview_buckets (
    resolution_ms INTEGER NOT NULL,
    start_ms INTEGER NOT NULL,
    series TEXT NOT NULL,
    label TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (resolution_ms, start_ms, series, label)
  ) WITHOUT ROWID`,
  `CREATE TABLE overview_sampling (
    name TEXT NOT NULL PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
  ) WITHOUT ROWID`,
];

/** The overview's buckets in a SQLite file (the embedded one, or the distributed gateway's own). */
export class SqliteOverviewStore implements OverviewStore {
  constructor(private readonly db: Database) {
    migrate(db, "overview", MIGRATIONS);
  }

  async add(atMs: number, deltas: ReadonlyMap<string, number>): Promise<void> {
    if (deltas.size === 0) return;
    const upsert = this.db.query(
      `INSERT INTO overview_buckets (resolution_ms, start_ms, series, label, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (resolution_ms, start_ms, series, label) DO UPDATE SET value = value + excluded.value`,
    );
    this.db.transaction(() => {
      for (const [k, n] of deltas) {
        const tab = k.indexOf("\t");
        const series = k.slice(0, tab);
        const label = k.slice(tab + 1);
        for (const res of [MINUTE_MS, HOUR_MS]) upsert.run(res, atMs - (atMs % res), series, label, n);
      }
    })();
  }

  async read(resolutionMs: number, fromMs: number, toMs: number): Promise<BucketRow[]> {
    return this.db
      .query<BucketRow, [number, number, number]>(
        `SELECT start_ms AS startMs, series, label, value FROM overview_buckets
         WHERE resolution_ms = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms`,
      )
      .all(resolutionMs, fromMs, toMs);
  }

  async prune(nowMs: number): Promise<void> {
    const del = this.db.query("DELETE FROM overview_buckets WHERE resolution_ms = ? AND start_ms < ?");
    del.run(MINUTE_MS, nowMs - MINUTE_RETENTION_MS);
    del.run(HOUR_MS, nowMs - HOUR_RETENTION_MS);
  }

  async claimSampling(holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    // The update's WHERE refuses a lease another holds that has not run out: then no row is returned.
    const row = this.db
      .query<{ holder: string }, [string, string, number, number]>(
        `INSERT INTO overview_sampling (name, holder, expires_ms) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
         WHERE overview_sampling.holder = excluded.holder OR overview_sampling.expires_ms <= ?4
         RETURNING holder`,
      )
      .get(SAMPLING_LEASE, holder, nowMs + leaseMs, nowMs);
    return row?.holder === holder;
  }

  async releaseSampling(holder: string): Promise<void> {
    this.db
      .query("UPDATE overview_sampling SET expires_ms = 0 WHERE name = ? AND holder = ?")
      .run(SAMPLING_LEASE, holder);
  }
}
