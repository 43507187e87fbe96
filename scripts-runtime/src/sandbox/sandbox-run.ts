import { readFileSync } from "node:fs";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { DeclarationProjection } from "../declaration/read-declaration.ts";
import type { ChildOutcome, RunJob, ThrownValue } from "../protocol.ts";
import type { LogLevel } from "../runtime/run-types.ts";
import { LogBudget } from "./log-budget.ts";
import type { QuickJSEngine } from "./quickjs-engine.ts";
import { SandboxNatives } from "./sandbox-natives.ts";

const PRELUDE = readFileSync(new URL("./sandbox-prelude.js", import.meta.url), "utf8");
const NANGO_MODULE = [
  "const m = globalThis.__junctionNango;",
  "export const createSync = m.createSync;",
  "export const createOnEvent = m.createOnEvent;",
  "export const createAction = m.createAction;",
  "export const ScriptApiError = m.ScriptApiError;",
  "export const ActionError = m.ActionError;",
  "export default m;",
].join("\n");
/**
 * QuickJS's own stack limit. Without one, deep recursion overflows the host's native stack first
 * and kills the whole process; 256 KiB makes QuickJS throw a catchable "stack overflow" in time.
 */
const MAX_STACK_BYTES = 256 * 1024;
/** How long one regular expression match may run (catastrophic backtracking). */
export const MAX_REGEX_MATCH_MS = 1000;

export interface RunReporter {
  hostCall(callId: number, method: string, args: string): void;
  log(level: LogLevel, message: string): void;
}

type Settled =
  | { type: "fulfilled"; value: QuickJSHandle }
  | { type: "rejected"; error: QuickJSHandle }
  | { type: "aborted"; error: QuickJSHandle }
  | { type: "timed_out" }
  | { type: "stalled" };

/** The prelude's functions the child drives a run with. */
type Internals = Record<"invoke" | "describe" | "fireTimer" | "describeError", QuickJSHandle>;

/** How the engine fared: a run that hit a limit or a fault leaves it unfit for the next run. */
export interface RunEnd {
  outcome: ChildOutcome;
  engineReusable: boolean;
}

/**
 * One run of one script in a fresh QuickJS runtime and context on `engine`: evaluates the
 * prelude, then the script as an ES module, then reads its declaration or calls its entry, and
 * drives promises, host replies and timers until the entry settles, stalls or runs out of time.
 * Every handle is disposed before `execute` returns.
 */
export class SandboxRun {
  private readonly rt: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly natives: SandboxNatives;
  private readonly logs: LogBudget;
  private readonly owned: QuickJSHandle[] = [];
  private wakeUp: (() => void) | null = null;
  private deadlinePassed = false;
  private interrupted = false;
  /** The match running now: its pattern and when it started. */
  private regexMatch: { source: string; since: number } | null = null;
  /** The pattern of a match stopped past MAX_REGEX_MATCH_MS: the run ends with RegExpTimeoutError. */
  private regexStopped: string | null = null;
  private deadlineTimer: ReturnType<typeof setTimeout> | null = null;
  private internals: Internals | null = null;

  constructor(
    private readonly engine: QuickJSEngine,
    private readonly job: RunJob,
    reporter: RunReporter,
    /** The `zod` module's source when the script imports it (sandbox-zod.ts), else null. */
    zodSource: string | null = null,
  ) {
    this.logs = new LogBudget(job.limits.maxLogBytes, (level, message) => reporter.log(level, message));
    this.rt = engine.module.newRuntime();
    this.rt.setMaxStackSize(MAX_STACK_BYTES);
    this.rt.setModuleLoader((name) => {
      if (name === "nango") return NANGO_MODULE;
      if (name === "zod" && zodSource !== null) return zodSource;
      return { error: new Error(`import "${name}" is not available in scripts`) };
    });
    this.ctx = this.rt.newContext();
    this.natives = new SandboxNatives(this.ctx, {
      hostCall: (callId, method, args) => reporter.hostCall(callId, method, args),
      log: (level, message) => this.logs.write(level, message),
      wake: () => this.wake(),
      regex: (source) => {
        this.regexMatch = source === null ? null : { source, since: Date.now() };
      },
    });
  }

  /** Delivers the parent's reply to host call `callId`. */
  reply(callId: number, reply: string): void {
    try {
      this.natives.reply(callId, reply);
    } catch {
      // The run is being torn down (interrupted or out of memory); the loop reports why.
      this.wake();
    }
  }

  async execute(): Promise<RunEnd> {
    let outcome: ChildOutcome;
    try {
      this.startDeadline();
      outcome = await this.run();
    } catch (err) {
      outcome = this.fault(err);
    }
    // QuickJS's interrupt cannot be caught by the script: the run ends, with the reason said plainly.
    if (this.regexStopped !== null && outcome.status !== "succeeded") outcome = this.regexTimeout(this.regexStopped);
    const disposed = this.dispose();
    const clean = outcome.status === "succeeded" || (outcome.status === "failed" && !outcome.reason);
    return { outcome, engineReusable: disposed && clean };
  }

  private async run(): Promise<ChildOutcome> {
    const internals = this.loadPrelude();
    const evaluated = this.ctx.evalCode(this.job.code, this.job.filename, { type: "module" });
    if (evaluated.error) return this.fromThrown(this.own(evaluated.error));
    const moduleValue = this.own(evaluated.value);
    const loaded = await this.settle(moduleValue);
    if (loaded.type !== "fulfilled") return this.fromSettled(loaded);
    const namespace = loaded.value;

    if (this.job.mode === "declare") {
      const text = this.callString(internals.describe, [namespace]);
      if (typeof text !== "string") return this.fromThrown(text.error);
      const declaration = readJson(text) as DeclarationProjection | null;
      if (!declaration || typeof declaration !== "object" || typeof declaration.export !== "string") {
        const message = "the script's declaration could not be read back from the sandbox";
        return this.finish("failed", { reason: { name: "ScriptInvalid", message } });
      }
      return this.finish("succeeded", { declaration });
    }
    const args = [namespace, this.ctx.newString(this.job.entry), this.ctx.newString(JSON.stringify(this.job.context))];
    args.push(this.ctx.newString(this.job.input));
    for (const handle of args.slice(1)) this.owned.push(handle);
    const called = this.ctx.callFunction(internals.invoke, this.ctx.undefined, ...args);
    if (called.error) return this.fromThrown(this.own(called.error));
    const settled = await this.settle(this.own(called.value));
    if (settled.type !== "fulfilled") return this.fromSettled(settled);
    const envelope = readEnvelope(this.ctx.getString(settled.value));
    if (!envelope) {
      // Only a script that rewrote JSON or Object.prototype.toJSON for itself gets here.
      const message = `the result of ${this.job.entry} could not be read back from the sandbox`;
      return this.finish("failed", { reason: { name: "ScriptInvalid", message } });
    }
    if (envelope.ok) return this.finish("succeeded", { output: JSON.stringify(envelope.output) });
    return this.finish(this.statusOf(envelope.error), { thrown: envelope.error });
  }

  /** Evaluates the prelude with the natives; returns the handles the run is driven with. */
  private loadPrelude(): Internals {
    const factory = this.ctx.unwrapResult(this.ctx.evalCode(PRELUDE, "junction:prelude", { type: "global" }));
    this.owned.push(factory);
    const natives = this.own(this.natives.build());
    const internals = this.own(this.ctx.unwrapResult(this.ctx.callFunction(factory, this.ctx.undefined, natives)));
    const get = (name: string) => this.own(this.ctx.getProp(internals, name));
    this.internals = {
      invoke: get("invoke"),
      describe: get("describe"),
      fireTimer: get("fireTimer"),
      describeError: get("describeError"),
    };
    return this.internals;
  }

  /** Runs jobs, timers and host replies until `promise` settles (a non-promise counts as fulfilled). */
  private async settle(promise: QuickJSHandle): Promise<Settled> {
    for (;;) {
      for (const id of this.natives.takeDue()) {
        const fired = this.fireTimer(id);
        if (fired) return { type: "aborted", error: fired };
      }
      const jobs = this.rt.executePendingJobs();
      if (jobs.error) return { type: "aborted", error: this.own(jobs.error) };
      jobs.dispose();
      const state = this.ctx.getPromiseState(promise);
      if (state.type === "fulfilled") {
        return { type: "fulfilled", value: state.notAPromise ? promise : this.own(state.value) };
      }
      if (state.type === "rejected") return { type: "rejected", error: this.own(state.error) };
      // Interrupted at the deadline, QuickJS may drop the job it stopped: the promise then looks idle.
      if (this.deadlinePassed || this.interrupted) return { type: "timed_out" };
      const idle = this.natives.inFlight === 0 && this.natives.pendingTimers === 0 && !this.rt.hasPendingJob();
      if (idle) return { type: "stalled" };
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
      });
      this.wakeUp = null;
    }
  }

  private fireTimer(id: number): QuickJSHandle | null {
    if (!this.internals) return null;
    const idHandle = this.ctx.newNumber(id);
    const result = this.ctx.callFunction(this.internals.fireTimer, this.ctx.undefined, idHandle);
    idHandle.dispose();
    if (result.error) return this.own(result.error);
    result.value.dispose();
    return null;
  }

  private fromSettled(settled: Exclude<Settled, { type: "fulfilled" }>): ChildOutcome {
    if (settled.type === "timed_out") return this.finish("timed_out", {});
    if (settled.type === "stalled") {
      const what = this.job.mode === "declare" ? "the module's top-level await" : this.job.entry;
      const message = `${what} is waiting on a promise that nothing can settle (no script API call or timer is pending)`;
      return this.finish("failed", { reason: { name: "StalledError", message } });
    }
    return this.fromThrown(settled.error);
  }

  /** Turns an exception handle into an outcome: interrupted, out of memory, or the script's error. */
  private fromThrown(error: QuickJSHandle): ChildOutcome {
    this.rt.removeInterruptHandler();
    if (this.interrupted) return this.finish("timed_out", {});
    const text = this.internals ? this.callString(this.internals.describeError, [error]) : null;
    if (typeof text !== "string") {
      // Describing the error needs a little memory; when even that fails, the heap is full.
      if (this.heapFull()) return this.finish("memory_exceeded", {});
      return this.finish("failed", { thrown: { thrown: "unknown", message: "the error could not be read" } });
    }
    const thrown = readJson(text) as ThrownValue | null;
    if (!thrown || typeof thrown.thrown !== "string") {
      return this.finish("failed", { thrown: { thrown: "unknown", message: "the error could not be read" } });
    }
    return this.finish(this.statusOf(thrown), { thrown });
  }

  private statusOf(thrown: ThrownValue): ChildOutcome["status"] {
    if (thrown.name === "InternalError" && thrown.message === "out of memory") return "memory_exceeded";
    // Once interrupted at the deadline, QuickJS may surface the stop as another error (a TypeError
    // "not a function" in an await chain): past the deadline, any failure is the deadline's.
    if (this.interrupted) return "timed_out";
    return "failed";
  }

  /** Calls `fn(...args)` expecting a string back; the exception handle otherwise. */
  private callString(fn: QuickJSHandle, args: QuickJSHandle[]): string | { error: QuickJSHandle } {
    const result = this.ctx.callFunction(fn, this.ctx.undefined, ...args);
    if (result.error) return { error: this.own(result.error) };
    const value = this.own(result.value);
    return this.ctx.getString(value);
  }

  private finish(status: ChildOutcome["status"], extra: Partial<ChildOutcome>): ChildOutcome {
    return { status, logsTruncated: this.logs.truncated, heapBytes: this.engine.memory.buffer.byteLength, ...extra };
  }

  /** A fault of the engine itself (a wasm trap, a host stack overflow): never the script's normal failure. */
  private fault(err: unknown): ChildOutcome {
    const message = err instanceof Error ? err.message : String(err);
    if (this.heapFull() || /memory/i.test(message)) return this.finish("memory_exceeded", {});
    return this.finish("crashed", { reason: { name: "SandboxFault", message: `the sandbox failed: ${message}` } });
  }

  private heapFull(): boolean {
    return this.engine.memory.buffer.byteLength >= this.engine.memoryBytes - 64 * 1024;
  }

  private regexTimeout(source: string): ChildOutcome {
    const pattern = source.length > 200 ? `${source.slice(0, 200)}…` : source;
    const message = `a regular expression match ran longer than ${MAX_REGEX_MATCH_MS} ms and was stopped: /${pattern}/`;
    return this.finish("failed", { reason: { name: "RegExpTimeoutError", message } });
  }

  private startDeadline(): void {
    // Stop a little before the parent's kill, so that the process survives and stays warm.
    const margin = Math.min(250, this.job.limits.timeoutMs / 10);
    const deadline = this.job.earlyStop ? Date.now() + this.job.limits.timeoutMs - margin : Number.POSITIVE_INFINITY;
    this.rt.setInterruptHandler(() => {
      const now = Date.now();
      if (this.regexMatch && now - this.regexMatch.since > MAX_REGEX_MATCH_MS) {
        this.regexStopped = this.regexMatch.source;
        return true;
      }
      if (now < deadline) return false;
      this.interrupted = true;
      return true;
    });
    if (!this.job.earlyStop) return;
    this.deadlineTimer = setTimeout(() => {
      this.deadlinePassed = true;
      this.wake();
    }, deadline - Date.now());
  }

  private wake(): void {
    this.wakeUp?.();
  }

  private own(handle: QuickJSHandle): QuickJSHandle {
    this.owned.push(handle);
    return handle;
  }

  /** Disposes every handle, then the context and runtime; false if QuickJS complained (a leak). */
  private dispose(): boolean {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    try {
      this.natives.dispose();
      for (const handle of this.owned.reverse()) if (handle.alive) handle.dispose();
      this.ctx.dispose();
      this.rt.dispose();
      return true;
    } catch {
      return false;
    }
  }
}

function readJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The prelude's envelope, or null if the script bent JSON out of shape for itself. */
function readEnvelope(text: string): { ok: true; output: unknown } | { ok: false; error: ThrownValue } | null {
  const value = readJson(text) as { ok?: unknown; output?: unknown; error?: { thrown?: unknown } } | null;
  if (!value || typeof value !== "object") return null;
  if (value.ok === true) return { ok: true, output: value.output };
  if (value.ok === false && value.error && typeof value.error.thrown === "string") {
    return { ok: false, error: value.error as ThrownValue };
  }
  return null;
}
