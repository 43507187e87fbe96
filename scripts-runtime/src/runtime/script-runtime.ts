import { type Clock, JunctionError, type Logger, systemClock } from "@junction/platform";
import { type CompileOutcome, compileScript } from "../compile/compile-script.ts";
import { compileBundle } from "../compile/compile-bundle.ts";
import type { CompiledScript } from "../compile/compiled-script.ts";
import type { RunJob } from "../protocol.ts";
import { DEFAULT_HOST_CALL_LIMITS, type HostCallLimits } from "./host-call-gate.ts";
import { describeEnding, type Ending } from "./run-error.ts";
import { cancelReason, type ProcessRun, runInProcess } from "./run-in-process.ts";
import { DEFAULT_RUN_LIMITS, resolveLimits } from "./run-limits.ts";
import type { RunLimits, RunRequest, RunResult, ScriptInput } from "./run-types.ts";
import { type RunTicket, SandboxPool } from "./sandbox-pool.ts";
import { refusingHost, type ScriptHost } from "./script-host.ts";
import { type ValidationResult, validateCompiled, validateWith } from "./validate-script.ts";

export interface ScriptRuntimeOptions {
  /** Sandbox processes kept warm; runs beyond this wait in line. Default 2. */
  poolSize?: number;
  /** Limits of runs that do not give their own. */
  limits?: Partial<RunLimits>;
  /** Timestamps of runs and log lines. Deadlines are wall-clock whatever the clock. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Let a sandbox stop a script that runs past its deadline itself (QuickJS interrupt), keeping
   * its process warm. The parent's kill at the deadline stays either way. Default true.
   */
  earlyStop?: boolean;
  /** Runs that may wait for a process before `run` refuses with `script_runtime_busy`. Default 1000. */
  maxQueuedRuns?: number;
  /**
   * Fairness. Processes beyond `poolSize` kept for priority runs (lifecycle hooks, actions,
   * validations), default 0; background runs (syncs, onWebhook) of one integration, and of one script,
   * at once, default: the pool size; how long a run may wait for a process, default 5 minutes.
   */
  reservedProcesses?: number;
  maxRunsPerIntegration?: number;
  maxRunsPerScript?: number;
  queueTimeoutMs?: number;
  /** Deadline for evaluating a script's top level when reading its declaration. Default 5 s. */
  declarationTimeoutMs?: number;
  /** What one run's script API calls may hold of the host at once. */
  hostCalls?: Partial<HostCallLimits>;
  /** Deadline for a new process to be ready. Default 20 s. */
  processStartTimeoutMs?: number;
}

const COMPILE_CACHE_SIZE = 64;

/**
 * Runs customer scripts in QuickJS inside a pool of child processes (spec: Customer-side scripts;
 * spec: Sandbox). Each run has a hard heap cap, a wall-clock deadline enforced by killing its
 * process, and only the script API of its `host` to reach the outside world.
 */
export class ScriptRuntime {
  private readonly pool: SandboxPool;
  private readonly defaults: RunLimits;
  private readonly clock: Clock;
  private readonly hostCalls: HostCallLimits;
  private readonly compiled = new Map<string, Promise<CompileOutcome>>();

  private constructor(private readonly options: ScriptRuntimeOptions) {
    this.defaults = resolveLimits(DEFAULT_RUN_LIMITS, options.limits);
    this.clock = options.clock ?? systemClock;
    this.hostCalls = { ...DEFAULT_HOST_CALL_LIMITS, ...options.hostCalls };
    const size = Math.max(1, options.poolSize ?? 2);
    this.pool = new SandboxPool({
      size,
      reserved: Math.max(0, options.reservedProcesses ?? 0),
      maxPerIntegration: Math.max(1, options.maxRunsPerIntegration ?? size),
      maxPerScript: Math.max(1, options.maxRunsPerScript ?? size),
      queueTimeoutMs: options.queueTimeoutMs ?? 300_000,
      startTimeoutMs: options.processStartTimeoutMs ?? 20_000,
      maxQueued: options.maxQueuedRuns ?? 1000,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  /** Creates the runtime and waits until its pool of processes is warm. */
  static async start(options: ScriptRuntimeOptions = {}): Promise<ScriptRuntime> {
    const runtime = new ScriptRuntime(options);
    await runtime.pool.warm();
    return runtime;
  }

  /** Compiles a script (TypeScript or JavaScript) without running it. */
  compile(source: string, filename: string): Promise<CompileOutcome> {
    return compileScript(source, filename);
  }

  /**
   * Checks a script for upload: it compiles, imports nothing but the allowed modules, and its
   * default export declares a sync or a lifecycle script. Refusals name file, line and column.
   */
  validateScript(source: string, filename: string): Promise<ValidationResult> {
    return validateWith(source, filename, this.declarationTimeoutMs(), (compiled, limits) =>
      this.execute(compiled, { mode: "declare", entry: "exec", input: "", context: {} }, limits, refusingHost),
    );
  }

  /**
   * Checks a CommonJS bundle built by Nango's CLI (`fileBody.js` of `nango deploy`) as
   * validateScript checks a source; `source` is the script's TypeScript, kept for the record.
   */
  validateBundle(js: string, filename: string): Promise<ValidationResult> {
    return validateCompiled(compileBundle(js, filename), js, filename, this.declarationTimeoutMs(), (c, limits) =>
      this.execute(c, { mode: "declare", entry: "exec", input: "", context: {} }, limits, refusingHost),
    );
  }

  /** Runs `entry` of a script. Never throws for anything the script does; see RunResult.status. */
  async run(request: RunRequest): Promise<RunResult> {
    const limits = resolveLimits(this.defaults, request.limits);
    const compiled = await this.compiledFor(request.script);
    if (!compiled.ok) {
      const at = this.clock.now();
      const { file, line, column, message } = compiled.error;
      const error = { name: "CompileError", message: `${file}:${line}:${column}: ${message}` };
      return { status: "failed", startedAt: at, finishedAt: at, durationMs: 0, logs: [], logsTruncated: false, error };
    }
    const input = request.input === undefined ? "" : JSON.stringify(request.input);
    const job = { mode: "invoke", entry: request.entry, input, context: request.context ?? {} } as const;
    const ticket: RunTicket = { priority: true, ...request.fairness };
    if (request.signal) ticket.signal = request.signal;
    try {
      const { result } = await this.execute(compiled.compiled, job, limits, request.host, ticket);
      return result;
    } catch (err) {
      if (!(err instanceof JunctionError && err.code === "run_cancelled")) throw err;
      // Cancelled while it waited for a process: nothing ran.
      const at = this.clock.now();
      const error = { name: "CancelledError", message: cancelReason(request.signal) };
      return { status: "failed", startedAt: at, finishedAt: at, durationMs: 0, logs: [], logsTruncated: false, error };
    }
  }

  /** How long a script's top level may take when its declaration is read (zod's load included). */
  private declarationTimeoutMs(): number {
    return this.options.declarationTimeoutMs ?? 10_000;
  }

  /** The pool's processes, for diagnostics and tests. */
  processes(): { pid: number; runs: number; idle: boolean }[] {
    return this.pool.processes();
  }

  /** Stops every process; runs in progress end as crashed. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private async execute(
    compiled: CompiledScript,
    job: Pick<RunJob, "mode" | "entry" | "input" | "context">,
    limits: RunLimits,
    host: ScriptHost,
    ticket: RunTicket = { priority: true },
  ): Promise<{ result: RunResult; run: ProcessRun }> {
    const full: RunJob = {
      ...job,
      filename: compiled.filename,
      code: compiled.code,
      limits,
      earlyStop: this.options.earlyStop ?? true,
    };
    let startedAt = this.clock.now();
    let began = performance.now();
    let run: ProcessRun | null = null;
    // A process that died before saying a word about the run (killed while idle, say) did not run
    // anything: the run moves to another process, once.
    for (
      let attempt = 0;
      attempt < 2 && (run === null || (run.ending.kind === "process_exited" && !run.heard));
      attempt++
    ) {
      const sandbox = await this.pool.acquire(ticket);
      // Time in line for a process is not the run's.
      startedAt = this.clock.now();
      began = performance.now();
      run = await runInProcess(sandbox, full, host, this.clock, this.hostCalls, this.options.logger, ticket.signal);
      if (run.reusable) this.pool.release(sandbox);
      else this.pool.discard(sandbox);
      if (run.ending.kind === "process_exited") {
        this.options.logger?.warn("a sandbox process died during a run", { pid: sandbox.pid, stderr: sandbox.stderr });
      }
    }
    if (!run) throw new Error("unreachable: no attempt was made");
    const described = describeEnding(run.ending, compiled, limits);
    const status = endingStatus(run.ending);
    const result: RunResult = {
      status,
      startedAt,
      finishedAt: this.clock.now(),
      durationMs: Math.round((performance.now() - began) * 1000) / 1000,
      logs: run.logs,
      logsTruncated: run.logsTruncated,
    };
    if (described) result.error = described.error;
    if (run.ending.kind === "outcome") {
      const outcome = run.ending.outcome;
      result.heapBytes = outcome.heapBytes;
      if (status === "succeeded" && outcome.output !== undefined) result.output = JSON.parse(outcome.output);
    }
    return { result, run };
  }

  private compiledFor(script: ScriptInput): Promise<CompileOutcome> {
    if ("code" in script) return Promise.resolve({ ok: true, compiled: script });
    const key = `${script.filename}:${new Bun.CryptoHasher("sha256").update(script.source).digest("hex")}`;
    let found = this.compiled.get(key);
    if (!found) {
      found = compileScript(script.source, script.filename);
      if (this.compiled.size >= COMPILE_CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value as string);
      this.compiled.set(key, found);
    }
    return found;
  }
}

/** A run's status from how its process run ended: a cancelled run failed, a lost process crashed. */
function endingStatus(ending: Ending): RunResult["status"] {
  if (ending.kind === "outcome") return ending.outcome.status;
  if (ending.kind === "killed_at_deadline") return "timed_out";
  return ending.kind === "cancelled" ? "failed" : "crashed";
}
