import { JunctionError, type Logger } from "@junction/platform";
import { Code } from "@connectrpc/connect";
import { SandboxProcess } from "./sandbox-process.ts";

export interface SandboxPoolOptions {
  size: number;
  startTimeoutMs: number;
  maxQueued: number;
  logger?: Logger;
}

interface Waiter {
  resolve: (process: SandboxProcess) => void;
  reject: (err: Error) => void;
}

/**
 * A fixed number of warm sandbox processes. A run takes an idle one, or starts one while the pool
 * is below its size, or waits in line. A process that died or was killed is dropped and replaced
 * at once, so that the next run finds a warm one.
 */
export class SandboxPool {
  private readonly all = new Set<SandboxProcess>();
  private readonly idle: SandboxProcess[] = [];
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(private readonly options: SandboxPoolOptions) {}

  /** Starts every process of the pool and waits until they are ready. */
  async warm(): Promise<void> {
    const started: Promise<void>[] = [];
    while (this.all.size < this.options.size) started.push(this.startOne().then((p) => this.release(p)));
    await Promise.all(started);
  }

  /** A process for one run; give it back with `release` or `discard`. */
  async acquire(): Promise<SandboxProcess> {
    if (this.closed) throw new Error("the script runtime is closed");
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.all.size < this.options.size) return this.startOne();
    if (this.waiting.length >= this.options.maxQueued) {
      throw new JunctionError(
        "script_runtime_busy",
        "too many script runs are waiting; try again later",
        Code.ResourceExhausted,
      );
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Gives back a healthy process after a run. */
  release(process: SandboxProcess): void {
    if (!process.alive || this.closed) {
      this.discard(process);
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(process);
    else this.idle.push(process);
  }

  /** Drops a process (killing it if it still runs) and starts its replacement. */
  discard(process: SandboxProcess): void {
    process.kill();
    this.all.delete(process);
    const at = this.idle.indexOf(process);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed) return;
    this.startOne().then(
      (fresh) => this.release(fresh),
      (err: Error) => {
        // Nobody to give a process to: fail the next in line rather than leave it waiting forever.
        this.options.logger?.error("a sandbox process failed to start", { cause: err });
        this.waiting.shift()?.reject(err);
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
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error("the script runtime is closed"));
    const ending = [...this.all].map((p) => {
      p.kill();
      return p.ended;
    });
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(ending);
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
