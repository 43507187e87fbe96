import type { Clock, Logger } from "@junction/platform";
import type { ChildMessage, RunJob } from "../protocol.ts";
import { truncationMarker } from "../sandbox/log-budget.ts";
import { type HostCallLimits, HostCallGate } from "./host-call-gate.ts";
import { busyReply, dispatchHostCall } from "./host-dispatch.ts";
import type { Ending } from "./run-error.ts";
import type { LogEntry } from "./run-types.ts";
import type { SandboxProcess } from "./sandbox-process.ts";
import type { ScriptHost } from "./script-host.ts";

export interface ProcessRun {
  ending: Ending;
  logs: LogEntry[];
  logsTruncated: boolean;
  /** Whether the process may serve another run. */
  reusable: boolean;
  /**
   * Whether the child said anything about this run. A script reaches the outside only through
   * messages, so a run whose process died before any message had no effect and may be retried.
   */
  heard: boolean;
}

/**
 * Runs one job on one sandbox process and waits for its end: the child's report, the wall-clock
 * deadline (the process is then killed: a script spinning inside QuickJS cannot delay a SIGKILL),
 * or the process dying. Host calls are served meanwhile; logs are collected with the clock's time.
 */
export function runInProcess(
  sandbox: SandboxProcess,
  job: RunJob,
  host: ScriptHost,
  clock: Clock,
  hostCalls: HostCallLimits,
  logger?: Logger,
  signal?: AbortSignal,
): Promise<ProcessRun> {
  return new Promise<ProcessRun>((resolve) => {
    new SandboxRun(sandbox, job, host, clock, new HostCallGate(hostCalls), resolve, logger, signal).start();
  });
}

/** One job's run on one sandbox process, from the job sent to its end (see `runInProcess`). */
class SandboxRun {
  private readonly runId = crypto.randomUUID();
  private readonly logs: LogEntry[] = [];
  private logBytes = 0;
  private logsTruncated = false;
  private heard = false;
  private finished = false;
  /** The child enforces the cap; the parent only guards against a child gone wrong. */
  private readonly logCeiling: number;
  private deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sandbox: SandboxProcess,
    private readonly job: RunJob,
    private readonly host: ScriptHost,
    private readonly clock: Clock,
    private readonly gate: HostCallGate,
    private readonly resolve: (run: ProcessRun) => void,
    private readonly logger: Logger | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.logCeiling = job.limits.maxLogBytes + Buffer.byteLength(truncationMarker(job.limits.maxLogBytes));
  }

  start(): void {
    const { sandbox, signal } = this;
    // Deliberately wall-clock, not the injected Clock: a test clock jumping a day ahead to fire
    // a schedule must not kill every script that is running at that moment.
    this.deadline = setTimeout(() => {
      sandbox.kill();
      this.finish({ kind: "killed_at_deadline" }, false);
    }, this.job.limits.timeoutMs);
    if (signal?.aborted) queueMicrotask(this.cancel);
    else signal?.addEventListener("abort", this.cancel, { once: true });
    sandbox.onMessage = this.onMessage;
    void sandbox.ended.then((exit) => this.finish({ kind: "process_exited", ...exit }, false));
    sandbox.runs++;
    sandbox.send({ type: "run", runId: this.runId, job: this.job });
  }

  /** Cancelled (POST /scripts/runs/{id}/cancel): the same stop as the deadline's. */
  private readonly cancel = () => {
    this.sandbox.kill();
    this.finish({ kind: "cancelled", reason: cancelReason(this.signal) }, false);
  };

  private readonly onMessage = (message: ChildMessage) => {
    if (this.finished || !("runId" in message) || message.runId !== this.runId) return;
    this.heard = true;
    if (message.type === "log") this.collectLog(message.level, message.message);
    else if (message.type === "host-call") this.serveHostCall(message.callId, message.method, message.args);
    else if (message.type === "done") {
      const outcome = message.outcome;
      this.finish({ kind: "outcome", outcome }, outcome.status !== "crashed" && !outcome.retire);
    }
  };

  private collectLog(level: LogEntry["level"], text: string): void {
    this.logBytes += Buffer.byteLength(text);
    if (this.logBytes > this.logCeiling) {
      this.logsTruncated = true;
      return;
    }
    const entry: LogEntry = { level, message: text, at: this.clock.now() };
    this.logs.push(entry);
    this.host.onLog?.(entry);
  }

  /** Serves a host call through the gate; a call that waited in line past the run's end never reaches the host. */
  private serveHostCall(callId: number, method: string, args: string): void {
    const { gate } = this;
    void gate.enter(args.length).then(async (admission) => {
      if (!admission.admitted) return this.reply(callId, busyReply(admission.message));
      try {
        if (!this.finished) {
          this.reply(callId, await dispatchHostCall(this.host, method, args, this.job.limits.memoryBytes, this.logger));
        }
      } finally {
        gate.leave(args.length);
      }
    });
  }

  private reply(callId: number, text: string): void {
    if (!this.finished) this.sandbox.send({ type: "host-reply", runId: this.runId, callId, reply: text });
  }

  private finish(ending: Ending, reusable: boolean): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadline);
    this.signal?.removeEventListener("abort", this.cancel);
    this.sandbox.onMessage = null;
    if (ending.kind === "outcome" && ending.outcome.logsTruncated) this.logsTruncated = true;
    const { logs, logsTruncated, heard } = this;
    this.resolve({ ending, logs, logsTruncated, reusable, heard });
  }
}

/** What the run's error says about its cancellation: the abort reason when it is a string. */
export function cancelReason(signal: AbortSignal | undefined): string {
  return typeof signal?.reason === "string" ? signal.reason : "the run was cancelled and its sandbox process stopped";
}
