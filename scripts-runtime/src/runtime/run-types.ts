import type { CompiledScript } from "../compile/compiled-script.ts";
import type { ScriptEntry } from "../declaration/script-declaration.ts";
import type { ScriptHost } from "./script-host.ts";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type LogLevel = "debug" | "info" | "warn" | "error";

/** One line a script logged. `at` is the runtime's clock when the line reached the parent. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  at: number;
}

/** How a run ended (spec: Customer-side scripts, "Bad input"). */
export type RunStatus = "succeeded" | "failed" | "timed_out" | "memory_exceeded" | "crashed";

/**
 * What went wrong in a run. `stack` holds the script's own frames only, at the lines of the
 * uploaded source. `status` and `body` are set when a script API call failed and was not caught.
 */
export interface RunError {
  name: string;
  message: string;
  stack?: string;
  status?: number;
  body?: JsonValue;
}

/** The per-run limits. */
export interface RunLimits {
  /** Hard cap of the sandbox's heap (the WebAssembly memory maximum), 32 MiB to 2 GiB. */
  memoryBytes: number;
  /** Wall-clock deadline: past it the run is stopped, killing its process if need be. */
  timeoutMs: number;
  /** Logs kept per run; past it lines are dropped and a marker line says so. */
  maxLogBytes: number;
}

/** Identifiers handed to the script as `nango.connectionId`, `nango.providerConfigKey`, ... */
export interface RunContext {
  runId?: string;
  environmentId?: string;
  providerConfigKey?: string;
  connectionId?: string;
  scriptName?: string;
  /** ms since epoch; `nango.lastSyncDate` in the script. */
  lastSyncDate?: number;
  /** `nango.variant`: the sync's variant, "base" unless it runs as one. */
  variant?: string;
}

/** A script given as source is compiled (and cached) by the runtime before it runs. */
export type ScriptInput = CompiledScript | { source: string; filename: string };

export interface RunRequest {
  script: ScriptInput;
  entry: ScriptEntry;
  /** Second argument of the entry: the webhook payload for `onWebhook`. JSON only. */
  input?: JsonValue;
  context?: RunContext;
  limits?: Partial<RunLimits>;
  host: ScriptHost;
  /**
   * What the pool's fairness goes by. Without it the run is a priority run, as are
   * lifecycle hooks and actions; syncs and onWebhook runs are background runs, capped per
   * integration and per script.
   */
  fairness?: { priority: boolean; integration?: string; script?: string };
  /** Aborting it cancels the run: out of the line, or its sandbox process killed. */
  signal?: AbortSignal;
}

export interface RunResult {
  status: RunStatus;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  logs: LogEntry[];
  /** True when lines were dropped because the run logged more than `maxLogBytes`. */
  logsTruncated: boolean;
  error?: RunError;
  /** What the entry returned, when it succeeded (JSON; `null` for undefined). */
  output?: JsonValue;
  /** The sandbox heap's size at the end of the run (it never shrinks within a run), in bytes. */
  heapBytes?: number;
}
