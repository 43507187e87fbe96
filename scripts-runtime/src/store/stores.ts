import type {
  NewScriptVersion,
  RunFilter,
  RunFinish,
  ScriptRunRecord,
  ScriptVersionRecord,
  ScriptVersionSummary,
} from "./records.ts";

/** The record of script runs. Times come in as arguments: the caller's clock, never the database's. */
export interface ScriptRunStore {
  /** Records a run (usually `running`, at its start). Logs past the store's cap are cut. */
  insert(run: ScriptRunRecord): Promise<void>;
  /**
   * Writes how a run ended, once: only a run still `running` is finished, and, when the finish names
   * its attempt, only by that attempt or a later one (see `claimAttempt`). Returns the finished record,
   * or null when the run is unknown, was already finished or was taken by a later attempt.
   */
  finish(environmentId: string, id: string, finish: RunFinish): Promise<ScriptRunRecord | null>;
  /**
   * Marks a running run as taken by a later attempt (an async action's job delivered again, to this or
   * another instance). From then on a finish naming an earlier attempt changes nothing: a process that
   * hung past its ack wait cannot end a run another process has taken over. False when the run is not
   * running or already at this attempt or a later one.
   */
  claimAttempt(environmentId: string, id: string, attempt: number): Promise<boolean>;
  get(environmentId: string, id: string): Promise<ScriptRunRecord | null>;
  /** Runs matching `filter`, newest first. */
  list(environmentId: string, filter?: RunFilter): Promise<ScriptRunRecord[]>;
  /** Deletes finished runs that ended before `before` (retention); returns how many. */
  deleteFinishedBefore(before: number): Promise<number>;
  close(): Promise<void>;
}

/** Uploaded scripts, per integration, with every version kept until the script is removed. */
export interface ScriptStore {
  /** Stores a new version, numbered one past the last (concurrent uploads get distinct numbers). */
  addVersion(version: NewScriptVersion): Promise<ScriptVersionRecord>;
  getLatest(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionRecord | null>;
  getVersion(
    environmentId: string,
    providerConfigKey: string,
    name: string,
    version: number,
  ): Promise<ScriptVersionRecord | null>;
  /** The latest version of every script, of one integration or all, ordered by integration then name. */
  listLatest(environmentId: string, providerConfigKey?: string): Promise<ScriptVersionRecord[]>;
  /** Every version of one script, newest first, without source and code. */
  listVersions(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionSummary[]>;
  /** Removes every version of a script; returns how many (0: there was no such script). */
  remove(environmentId: string, providerConfigKey: string, name: string): Promise<number>;
  /** Removes every script of an integration (when the integration is deleted); returns how many versions. */
  removeIntegration(environmentId: string, providerConfigKey: string): Promise<number>;
  close(): Promise<void>;
}
