import { Code } from "@connectrpc/connect";
import { JunctionError, type Logger } from "@junction/platform";
import { SandboxProcess } from "./sandbox-process.ts";

export interface SandboxPoolOptions {
  /** Processes for every run. */
  size: number;
  /** Processes beyond `size` that only priority runs use (a looping sync starves no hook). */
  reserved: number;
  /** Background runs of one integration at once. */
  maxPerIntegration: number;
  /** Background runs of one script at once. */
  maxPerScript: number;
  /** How long a run may wait for a process before it fails (wall clock, as run deadlines). */
  queueTimeoutMs: number;
  startTimeoutMs: number;
  maxQueued: number;
  logger?: Logger;
}

/** Who asks for a process: what the pool's fairness goes by. */
export interface RunTicket {
  /**
   * Lifecycle hooks, actions and validations: served before background runs, never held by the
   * per-integration and per-script caps, and the only ones that may use the reserved processes.
   */
  priority: boolean;
  /** The integration (background runs are capped per integration). */
  integration?: string;
  /** The script, unique across integrations (background runs are capped per script). */
  script?: string;
  /** Aborting it takes the run out of the line. */
  signal?: AbortSignal;
}

interface Waiter {
  ticket: RunTicket;
  resolve: (process: SandboxProcess) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  onAbort: () => void;
}

const closedError = () => new Error("the script runtime is closed");

/**
 * Warm sandbox processes shared fairly. A run takes an idle process, or
 * starts one while the pool is below its size, or waits in line. The line is served priority runs
 * first, then background runs (syncs, onWebhook) in order, skipping those whose integration or
 * script is at its cap, so that one integration's looping syncs leave processes to the others. A
 * run that waited `queueTimeoutMs` fails with `script_queue_timeout`. A process that died is dropped
 * and replaced at once, so that the next run finds a warm one.
 */
export class SandboxPool {
  private readonly all = new Set<SandboxProcess>();
  private readonly idle: SandboxProcess[] = [];
  private readonly waiting: Waiter[] = [];
  /** Runs holding a process (or one being started for them). */
  private readonly holders = new Map<SandboxProcess | symbol, RunTicket>();
  private closed = false;

  constructor(private readonly options: SandboxPoolOptions) {}

  private get capacity(): number {
    return this.options.size + this.options.reserved;
  }

  /** Starts every process of the pool and waits until they are ready. */
  async warm(): Promise<void> {
    const started: Promise<void>[] = [];
    while (this.all.size < this.capacity) {
      started.push(
        this.startOne().then((p) => {
          this.idle.push(p);
          this.pump();
        }),
      );
    }
    await Promise.all(started);
  }

  /** A process for one run; give it back with `release` or `discard`. */
  acquire(ticket: RunTicket = { priority: true }): Promise<SandboxProcess> {
    if (this.closed) return Promise.reject(closedError());
    if (ticket.signal?.aborted) return Promise.reject(cancelled());
    if (this.admissible(ticket) && this.hasRoom()) return this.take(ticket);
    if (this.waiting.length >= this.options.maxQueued) {
      return Promise.reject(
        new JunctionError(
          "script_runtime_busy",
          "too many script runs are waiting; try again later",
          Code.ResourceExhausted,
        ),
      );
    }
    return new Promise<SandboxProcess>((resolve, reject) => {
      const waiter: Waiter = {
        ticket,
        resolve,
        reject,
        // Wall clock, as the run deadlines: a test clock jumping ahead must not fail queued runs.
        timer: setTimeout(() => {
          this.drop(waiter);
          reject(
            new JunctionError(
              "script_queue_timeout",
              `the run waited ${this.options.queueTimeoutMs} ms for a sandbox process and was given up`,
              Code.ResourceExhausted,
            ),
          );
        }, this.options.queueTimeoutMs),
        onAbort: () => {
          this.drop(waiter);
          reject(cancelled());
        },
      };
      ticket.signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Gives back a healthy process after a run. */
  release(process: SandboxProcess): void {
    this.holders.delete(process);
    if (!process.alive || this.closed) {
      this.discard(process);
      return;
    }
    this.idle.push(process);
    this.pump();
  }

  /** Drops a process (killing it if it still runs) and starts its replacement. */
  discard(process: SandboxProcess): void {
    process.kill();
    this.holders.delete(process);
    this.all.delete(process);
    const at = this.idle.indexOf(process);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed) return;
    this.startOne().then(
      (fresh) => {
        this.idle.push(fresh);
        this.pump();
      },
      (err: Error) => {
        // Nobody to give a process to: fail the next in line rather than leave it waiting forever.
        this.options.logger?.error("a sandbox process failed to start", { cause: err });
        const next = this.waiting[0];
        if (next) {
          this.drop(next);
          next.reject(err);
        }
      },
    );
  }

  /** Pids and run counts, for diagnostics and tests. */
  processes(): { pid: number; runs: number; idle: boolean }[] {
    return [...this.all].map((p) => ({ pid: p.pid, runs: p.runs, idle: this.idle.includes(p) }));
  }

  get queued(): number {
    return this.waiting.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.waiting]) {
      this.drop(waiter);
      waiter.reject(closedError());
    }
    const ending = [...this.all].map((p) => {
      p.kill();
      return p.ended;
    });
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(ending);
  }

  /** Hands processes to the line: priority runs first, then background runs in order, within their caps. */
  private pump(): void {
    for (const priority of [true, false]) {
      for (const waiter of [...this.waiting]) {
        if (!this.hasRoom()) return;
        if (waiter.ticket.priority !== priority || !this.admissible(waiter.ticket)) continue;
        this.drop(waiter);
        this.take(waiter.ticket).then(waiter.resolve, waiter.reject);
      }
    }
  }

  /** An idle process, or room to start one. */
  private hasRoom(): boolean {
    return this.idle.length > 0 || this.all.size < this.capacity;
  }

  /** Whether the caps let `ticket` run now (given a process). */
  private admissible(ticket: RunTicket): boolean {
    if (ticket.priority) return true;
    let background = 0;
    let ofIntegration = 0;
    let ofScript = 0;
    for (const held of this.holders.values()) {
      if (held.priority) continue;
      background++;
      if (ticket.integration !== undefined && held.integration === ticket.integration) ofIntegration++;
      if (ticket.script !== undefined && held.script === ticket.script) ofScript++;
    }
    return (
      background < this.options.size &&
      ofIntegration < this.options.maxPerIntegration &&
      ofScript < this.options.maxPerScript
    );
  }

  /** Gives `ticket` an idle process or one started for it; counted as held at once. */
  private take(ticket: RunTicket): Promise<SandboxProcess> {
    const process = this.idle.pop();
    if (process) {
      this.holders.set(process, ticket);
      return Promise.resolve(process);
    }
    const placeholder = Symbol("starting");
    this.holders.set(placeholder, ticket);
    return this.startOne().then(
      (started) => {
        this.holders.delete(placeholder);
        this.holders.set(started, ticket);
        return started;
      },
      (err: unknown) => {
        this.holders.delete(placeholder);
        this.pump();
        throw err;
      },
    );
  }

  private drop(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    waiter.ticket.signal?.removeEventListener("abort", waiter.onAbort);
    const at = this.waiting.indexOf(waiter);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  private async startOne(): Promise<SandboxProcess> {
    const process = SandboxProcess.spawn(this.options.startTimeoutMs);
    this.all.add(process);
    void process.ended.then(() => {
      // An idle process that died (killed from outside) is replaced like any other.
      if (this.idle.includes(process)) this.discard(process);
    });
    try {
      await process.ready;
      return process;
    } catch (err) {
      this.all.delete(process);
      process.kill();
      throw err;
    }
  }
}

/** A run cancelled while it waited for a process. */
export function cancelled(): JunctionError {
  return new JunctionError("run_cancelled", "the run was cancelled before it started", Code.Canceled);
}
