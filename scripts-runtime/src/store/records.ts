import type { CompiledScript } from "../compile/compiled-script.ts";
import type { ScriptDeclaration, ScriptEntry } from "../declaration/script-declaration.ts";
import type { JsonValue, LogEntry, RunError, RunStatus } from "../runtime/run-types.ts";

/** What started a run (spec: Customer-side scripts, Triggers). */
export type RunTrigger = "event" | "schedule" | "manual" | "webhook" | "action";
export const RUN_TRIGGERS: readonly RunTrigger[] = ["event", "schedule", "manual", "webhook", "action"];

/**
 * How a recorded run ended: the sandbox's outcome, or `interrupted` (a sync run in flight when its
 * scripts service stopped or died).
 */
export type EndedRunStatus = RunStatus | "interrupted";

/** A run is recorded as `running` when it starts, then finished with how it ended. */
export type StoredRunStatus = EndedRunStatus | "running";

/** The kinds of credential that start action runs. */
export type RunCallerKind = "secret_key" | "mcp_client" | "dashboard";
export const RUN_CALLER_KINDS: readonly RunCallerKind[] = ["secret_key", "mcp_client", "dashboard"];

/** Who started a run (action runs): the credential's kind and what names it, never the credential. */
export interface RunCaller {
  kind: RunCallerKind;
  /** The secret key's name (a dashboard session's key); on an end user's MCP URL, the MCP client's name. */
  name: string;
  /** The secret key's id (`key_...`) when a secret key authenticated the call. */
  keyId?: string;
  /** On an end user's MCP URL: the MCP client's OAuth client_id. */
  clientId?: string;
  /** On an end user's MCP URL: the end user's id. */
  endUserId?: string;
}

/** One run of one script version (spec: "Every run is recorded"). */
export interface ScriptRunRecord {
  /** `run_...` */
  id: string;
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  scriptVersion: number;
  /** Null for runs that concern no connection. */
  connectionId: string | null;
  trigger: RunTrigger;
  entry: ScriptEntry;
  /** 1 for the first try; retries of a transient failure count up. */
  attempt: number;
  status: StoredRunStatus;
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  logs: LogEntry[];
  logsTruncated: boolean;
  error: RunError | null;
  /** What an action's exec returned, when it succeeded; absent for other runs. */
  output?: JsonValue;
  /** An action run's input, when it had one; written when the run is recorded. */
  input?: JsonValue;
  /** An action run's caller; absent for other runs (and action runs recorded before callers were). */
  caller?: RunCaller;
}

/** How a run ended, written once by `finish`. */
export interface RunFinish {
  status: EndedRunStatus;
  finishedAt: number;
  durationMs: number;
  logs: LogEntry[];
  logsTruncated: boolean;
  error: RunError | null;
  /** An action's result (kept for `GET /action/{id}`); left out for other runs. */
  output?: JsonValue;
  /** The attempt that ended the run, when it was tried again under the same id (async actions). */
  attempt?: number;
}

export interface RunFilter {
  providerConfigKey?: string;
  scriptName?: string;
  connectionId?: string;
  status?: StoredRunStatus;
  trigger?: RunTrigger;
  /** Only runs older than this run id (ids sort by creation): the next page after `before`. */
  before?: string;
  /** At most this many, 1..1000, default 100. */
  limit?: number;
}

/** One uploaded version of a script (spec: Upload and deploy). */
export interface ScriptVersionRecord {
  /** `scr_...` */
  id: string;
  environmentId: string;
  /** The integration the script belongs to. */
  providerConfigKey: string;
  name: string;
  /** 1, 2, ... per (environment, integration, name); never reused, even after a removal. */
  version: number;
  source: string;
  compiled: CompiledScript;
  declaration: ScriptDeclaration;
  createdAt: number;
}

export type NewScriptVersion = Omit<ScriptVersionRecord, "version">;

/** A version without its source and code, for listings. */
export type ScriptVersionSummary = Omit<ScriptVersionRecord, "source" | "compiled"> & {
  sourceHash: string;
  filename: string;
};

export const summarize = ({ source: _s, compiled, ...rest }: ScriptVersionRecord): ScriptVersionSummary => ({
  ...rest,
  sourceHash: compiled.sourceHash,
  filename: compiled.filename,
});

export const DEFAULT_RUN_PAGE = 100;
export const MAX_RUN_PAGE = 1000;
export const pageSize = (limit?: number) => Math.min(MAX_RUN_PAGE, Math.max(1, Math.floor(limit ?? DEFAULT_RUN_PAGE)));
