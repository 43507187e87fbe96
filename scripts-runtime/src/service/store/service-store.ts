import type { ClaimOutcome, FollowUpMode, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";

/**
 * What the scripts service keeps besides scripts and runs: the sync schedules (one row per sync and
 * connection) and script options. Times come in as arguments (the service clock), never the
 * database's. Claims are compare-and-set on `nextDueAt`, so that several processes sharing the store
 * run each due time once.
 */
export interface ScriptsServiceStore {
  /** Inserts the rows that do not exist yet (existing rows keep their times); returns how many were new. */
  ensureSchedules(entries: (ScheduleKey & { nextDueAt: number | null })[]): Promise<number>;
  getSchedule(key: ScheduleKey): Promise<ScheduleEntry | null>;
  /** Rows due at `now` (nextDueAt ≤ now, or a follow-up whose followUpAt ≤ now), earliest first. */
  listDue(now: number, limit: number): Promise<ScheduleEntry[]>;
  /** The earliest nextDueAt or followUpAt of all rows, null when nothing is scheduled. */
  earliestDue(): Promise<number | null>;
  /**
   * Claims due time `due` of a row: moves it to `next` and takes the lease, only if the row is still
   * due at `due` and its lease is free or lapsed at `now`.
   */
  claimDue(key: ScheduleKey, due: number, next: number, lease: Lease, now: number): Promise<ClaimOutcome>;
  /** Moves a due time that was not run (a run was in progress) to `next`, if still `due`. */
  skipDue(key: ScheduleKey, due: number, next: number): Promise<boolean>;
  /**
   * Takes the lease of a row for a run outside the schedule (a trigger), creating the row with
   * `nextDueAt` when absent; false when a run holds it.
   */
  acquireLease(key: ScheduleKey, lease: Lease, now: number, nextDueAt: number | null): Promise<boolean>;
  /**
   * Gives the lease back (only its holder can); `succeededAt` records a successful run's start. With
   * `renew`, a queued follow-up is taken instead, in the same step: the lease is kept until
   * `renew.until`, the follow-up cleared and its mode returned (null: nothing was queued, released).
   */
  releaseLease(
    key: ScheduleKey,
    holder: string,
    succeededAt: number | null,
    renew?: Lease,
  ): Promise<FollowUpMode | null>;
  /**
   * Queues one follow-up run of a row whose run is in progress; follow-ups coalesce (a full refresh
   * wins). Its followUpAt is the lease's end (else `now`). False when the row does not exist.
   */
  queueFollowUp(key: ScheduleKey, mode: FollowUpMode, now: number): Promise<boolean>;
  /**
   * Takes the follow-up queued for `at` with the lease, if the lease is free at `now`; returns its
   * mode. When the lease is held, the follow-up is moved to the lease's end and null returned.
   */
  claimFollowUp(key: ScheduleKey, at: number, lease: Lease, now: number): Promise<FollowUpMode | null>;
  /**
   * Pauses (no due time, no queued follow-up) or starts (due at `now` if it was paused, else as it
   * was) the rows of `keys`, creating missing ones, all or none; returns how many changed.
   */
  setPaused(keys: ScheduleKey[], paused: boolean, now: number): Promise<number>;
  /**
   * Sets a row's own frequency (null: the script's, `defaultMs`), creating a missing row (paused); a
   * scheduled row is next due one new period after `now`.
   */
  setFrequency(
    key: ScheduleKey,
    frequency: { text: string; ms: number } | null,
    defaultMs: number,
    now: number,
  ): Promise<void>;
  /** Removes the rows of a script (it was removed); returns how many. */
  removeScriptSchedules(environmentId: string, providerConfigKey: string, scriptName: string): Promise<number>;
  /** Removes the rows of a connection (it is gone); returns how many. */
  removeConnectionSchedules(environmentId: string, providerConfigKey: string, connectionId: string): Promise<number>;
  getOptions(environmentId: string, providerConfigKey: string, scriptName: string): Promise<ScriptOptions | null>;
  setOptions(
    environmentId: string,
    providerConfigKey: string,
    scriptName: string,
    options: ScriptOptions,
  ): Promise<void>;
  removeOptions(environmentId: string, providerConfigKey: string, scriptName: string): Promise<void>;
  /**
   * Takes the deploy lock of an environment for `lease.holder` until `lease.until`, if it is free or
   * lapsed at `now`; false when another deploy holds it.
   */
  acquireDeployLock(environmentId: string, lease: Lease, now: number): Promise<boolean>;
  /** Gives the deploy lock back (only its holder can). */
  releaseDeployLock(environmentId: string, holder: string): Promise<void>;
  close(): Promise<void>;
}
