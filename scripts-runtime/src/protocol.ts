/**
 * The messages between the runtime (parent) and a sandbox process (child), over Bun's IPC with
 * JSON serialisation. Payloads that come from the script stay JSON text end to end, so that the
 * parent parses them once, under its own size checks.
 */
import type { DeclarationProjection } from "./declaration/read-declaration.ts";
import type { ScriptEntry } from "./declaration/script-declaration.ts";
import type { LogLevel, RunContext, RunLimits } from "./runtime/run-types.ts";

export interface RunJob {
  /** "declare" reads the default export; "invoke" calls `entry` of it. */
  mode: "declare" | "invoke";
  entry: ScriptEntry;
  filename: string;
  code: string;
  context: RunContext;
  /** JSON text of the entry's second argument, or "" for none. */
  input: string;
  limits: RunLimits;
  /** Whether the child stops a busy script itself (QuickJS interrupt) before the parent's kill. */
  earlyStop: boolean;
}

/** A value thrown by the script, as the prelude described it. */
export interface ThrownValue {
  thrown: string;
  name?: string;
  message?: string;
  stack?: string;
  status?: number;
  body?: unknown;
}

export interface ChildOutcome {
  status: "succeeded" | "failed" | "timed_out" | "memory_exceeded" | "crashed";
  /** JSON text of the entry's result (invoke), when it succeeded. */
  output?: string;
  declaration?: DeclarationProjection;
  thrown?: ThrownValue;
  /** For failures that are the sandbox's, not the script's (a stall, an internal fault). */
  reason?: { name: string; message: string };
  logsTruncated: boolean;
  heapBytes: number;
  /** The process asks to be replaced after this run (its heap grew large; see child-main). */
  retire?: boolean;
}

export type ParentMessage =
  | { type: "run"; runId: string; job: RunJob }
  | { type: "host-reply"; runId: string; callId: number; reply: string };

export type ChildMessage =
  | { type: "ready" }
  | { type: "host-call"; runId: string; callId: number; method: string; args: string }
  | { type: "log"; runId: string; level: LogLevel; message: string }
  | { type: "done"; runId: string; outcome: ChildOutcome };
