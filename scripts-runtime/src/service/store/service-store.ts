import type { ClaimOutcome, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";

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
  /** Rows due at `now` (nextDueAt ≤ now), earliest first. */
  listDue(now: number, limit: number): Promise<ScheduleEntry[]>;
  /** The earliest nextDueAt of all rows, null when none is scheduled. */
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
  /** Gives the lease back (only its holder can); `succeededAt` records a successful run's start. */
  releaseLease(key: ScheduleKey, holder: string, succeededAt: number | null): Promise<void>;
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
  close(): Promise<void>;
}
