import type { CompiledScript } from "../compile/compiled-script.ts";
import type { ChildOutcome, ThrownValue } from "../protocol.ts";
import type { JsonValue, RunError, RunLimits } from "./run-types.ts";
import { formatFrames, type StackFrame, scriptFrames } from "./stack-frames.ts";

const MAX_MESSAGE = 4000;
const MAX_STACK = 8000;
const MAX_BODY = 64 * 1024;

/** How the run ended, from the parent's side, before it is turned into a RunError. */
export type Ending =
  | { kind: "outcome"; outcome: ChildOutcome }
  | { kind: "killed_at_deadline" }
  | { kind: "cancelled"; reason: string }
  | { kind: "process_exited"; signal: string | null; exitCode: number | null };

/** The error of a run and the first script frame it points at (for upload errors). */
export interface DescribedError {
  error: RunError;
  frame: StackFrame | null;
}

/** Explains an ending in words the script's author can act on. */
export function describeEnding(ending: Ending, compiled: CompiledScript, limits: RunLimits): DescribedError | null {
  if (ending.kind === "killed_at_deadline") return plain("TimeoutError", timeoutMessage(limits));
  if (ending.kind === "cancelled") return plain("CancelledError", cap(ending.reason, MAX_MESSAGE));
  if (ending.kind === "process_exited") {
    const how = ending.signal ? `signal ${ending.signal}` : `exit code ${ending.exitCode}`;
    return plain("SandboxCrash", `the sandbox process running the script died (${how}); the run was abandoned`);
  }
  const outcome = ending.outcome;
  switch (outcome.status) {
    case "succeeded":
      return null;
    case "timed_out":
      return plain("TimeoutError", timeoutMessage(limits));
    case "memory_exceeded":
      return plain(
        "MemoryLimitError",
        `the script exceeded its memory limit of ${mib(limits.memoryBytes)} and was stopped`,
      );
    default:
      if (outcome.reason) return plain(outcome.reason.name, cap(outcome.reason.message, MAX_MESSAGE));
      return fromThrown(outcome.thrown ?? { thrown: "unknown" }, compiled);
  }
}

function fromThrown(thrown: ThrownValue, compiled: CompiledScript): DescribedError {
  if (thrown.thrown !== "error") return plain("ThrownValue", nonErrorMessage(thrown));
  const frames = thrown.stack ? scriptFrames(thrown.stack, compiled.filename, compiled.sourceMap) : [];
  const error: RunError = { name: cap(thrown.name ?? "Error", 200), message: cap(thrown.message ?? "", MAX_MESSAGE) };
  if (frames.length > 0) error.stack = cap(formatFrames(frames), MAX_STACK);
  if (typeof thrown.status === "number") error.status = thrown.status;
  if (thrown.body !== undefined) error.body = capBody(thrown.body as JsonValue);
  return { error, frame: frames[0] ?? null };
}

function nonErrorMessage(thrown: ThrownValue): string {
  switch (thrown.thrown) {
    case "string":
      return cap(`the script threw a string instead of an Error: ${JSON.stringify(thrown.message ?? "")}`, MAX_MESSAGE);
    case "object":
      return cap(`the script threw an object instead of an Error: ${thrown.message ?? ""}`, MAX_MESSAGE);
    case "undefined":
    case "null":
      return `the script threw ${thrown.thrown} instead of an Error`;
    case "unknown":
      return `the script failed with a value that could not be read`;
    default:
      return cap(`the script threw a ${thrown.thrown} instead of an Error: ${thrown.message ?? ""}`, MAX_MESSAGE);
  }
}

const plain = (name: string, message: string): DescribedError => ({ error: { name, message }, frame: null });
const timeoutMessage = (limits: RunLimits) =>
  `the script did not finish within its ${limits.timeoutMs} ms deadline and was stopped`;
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
const cap = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… [truncated]`);

function capBody(body: JsonValue): JsonValue {
  const text = JSON.stringify(body) ?? "null";
  return text.length <= MAX_BODY ? body : cap(text, MAX_BODY);
}
