import { exponentialDelay } from "@junction/platform";
import type { Subprocess } from "bun";
import type { ProcessPlan } from "./topology-plan.ts";

/** Where the supervisor reports: its own lines and each process's output, prefixed with its name. */
export interface SupervisorOutput {
  event(line: string): void;
  child(name: string, line: string): void;
}

export interface SupervisorOptions {
  env: Record<string, string>;
  output: SupervisorOutput;
  /** Called whenever a process's pid changes (started, restarted, stopped). */
  onPids(pids: Record<string, number>): void;
  /** First restart delay; doubled on each crash in a row, up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A process that ran this long before crashing restarts after backoffMs again. */
  stableAfterMs?: number;
}

interface Running {
  plan: ProcessPlan;
  proc: Subprocess;
  startedAt: number;
  restarts: number;
  lastLines: string[];
  /** Printed its ready line. */
  ready: boolean;
}

const STOP_GRACE_MS = 10_000;

/**
 * Runs a list of processes in order, each once it printed its ready line, and restarts one that exits
 * when it was not asked to, with exponential backoff; `stop` ends them in reverse order.
 */
export class Supervisor {
  private readonly running = new Map<string, Running>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Starts every process in order; throws (with the process's last lines) if one does not get ready. */
  async start(plans: ProcessPlan[]): Promise<void> {
    for (const plan of plans) {
      if (this.stopping) return;
      await this.spawn(plan, 0);
    }
  }

  pids(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, r] of this.running) if (r.proc.exitCode === null && !r.proc.killed) out[name] = r.proc.pid;
    return out;
  }

  private async spawn(plan: ProcessPlan, restarts: number): Promise<void> {
    const proc = Bun.spawn(plan.command, { env: this.options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const entry: Running = { plan, proc, startedAt: Date.now(), restarts, lastLines: [], ready: false };
    this.running.set(plan.name, entry);
    this.options.onPids(this.pids());
    const readyOrExit = new Promise<boolean>((resolve) => {
      const onLine = (line: string) => {
        entry.lastLines.push(line);
        if (entry.lastLines.length > 20) entry.lastLines.shift();
        this.options.output.child(plan.name, line);
        if (!entry.ready && plan.ready.test(line)) {
          entry.ready = true;
          resolve(true);
        }
      };
      void readLines(proc.stdout as ReadableStream<Uint8Array>, onLine);
      void readLines(proc.stderr as ReadableStream<Uint8Array>, onLine);
      void proc.exited.then(() => resolve(false));
      setTimeout(() => resolve(false), plan.readyWithinMs).unref();
    });
    void proc.exited.then(() => this.exited(entry));
    if (!(await readyOrExit)) {
      if (this.stopping) return;
      if (restarts > 0) return; // a restart that fails is handled by exited(): another backoff
      proc.kill("SIGKILL");
      throw new Error(
        `${plan.name} did not start (${describeExit(proc) ?? `no "${plan.ready.source}" line within ${plan.readyWithinMs} ms`}):\n  ${entry.lastLines.join("\n  ")}`,
      );
    }
    if (restarts > 0) this.options.output.event(`${plan.name} restarted (pid ${proc.pid})`);
  }

  private exited(entry: Running): void {
    if (this.running.get(entry.plan.name) !== entry) return;
    this.options.onPids(this.pids());
    // A first start that failed is start()'s to report; a restart that failed is retried.
    if (this.stopping || (!entry.ready && entry.restarts === 0)) return;
    const { backoffMs = 500, maxBackoffMs = 30_000, stableAfterMs = 60_000 } = this.options;
    const inARow = Date.now() - entry.startedAt >= stableAfterMs ? 0 : entry.restarts;
    const delay = exponentialDelay(inARow, backoffMs, maxBackoffMs);
    this.options.output.event(
      `${entry.plan.name} exited (${describeExit(entry.proc)}); restarting in ${delay} ms (restart ${entry.restarts + 1})`,
    );
    setTimeout(() => {
      if (!this.stopping) void this.spawn(entry.plan, inARow + 1).catch(() => {});
    }, delay);
  }

  /** Stops every process, the last started first (nats-server last), each with SIGTERM then SIGKILL. */
  async stop(): Promise<void> {
    this.stopping = true;
    const entries = [...this.running.values()].reverse();
    const nats = entries.filter((e) => e.plan.name === "nats");
    const others = entries.filter((e) => e.plan.name !== "nats");
    const gateway = others.filter((e) => e.plan.name === "gateway");
    await Promise.all(gateway.map(stopOne));
    await Promise.all(others.filter((e) => e.plan.name !== "gateway").map(stopOne));
    await Promise.all(nats.map(stopOne));
    this.options.onPids({});
  }
}

async function stopOne(entry: Running): Promise<void> {
  const { proc } = entry;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS);
  await proc.exited;
  clearTimeout(timer);
}

function describeExit(proc: Subprocess): string | undefined {
  if (proc.signalCode) return `signal ${proc.signalCode}`;
  if (proc.exitCode !== null) return `exit code ${proc.exitCode}`;
  return undefined;
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  }
  if (buffered) onLine(buffered);
}
