import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import type { ChildMessage, ParentMessage } from "../protocol.ts";

const CHILD_MAIN = fileURLToPath(new URL("../sandbox/child-main.ts", import.meta.url));
const STDERR_TAIL = 4096;

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/**
 * One sandbox process: a Bun child running `child-main.ts` with an empty environment (no secret
 * of the service is there to find, even for code that got out of QuickJS), spoken to over IPC.
 */
export class SandboxProcess {
  /** Receives the child's messages while a run is attached. */
  onMessage: ((message: ChildMessage) => void) | null = null;
  runs = 0;
  private exit: ProcessExit | null = null;
  private stderrTail = "";
  private markEnded: (exit: ProcessExit) => void = () => {};
  /** Resolves once, when the process ends, whoever ended it. */
  readonly ended = new Promise<ProcessExit>((resolve) => {
    this.markEnded = resolve;
  });

  private constructor(
    private readonly proc: Subprocess<"ignore", "ignore", "pipe">,
    readonly ready: Promise<void>,
  ) {}

  /** Starts a process; `ready` resolves once it has compiled QuickJS, or rejects if it cannot start. */
  static spawn(startTimeoutMs: number): SandboxProcess {
    let markReady: () => void = () => {};
    let fail: (err: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      fail = reject;
    });
    let self: SandboxProcess | null = null;
    const proc = Bun.spawn([process.execPath, CHILD_MAIN], {
      env: {},
      cwd: tmpdir(),
      stdio: ["ignore", "ignore", "pipe"],
      serialization: "json",
      ipc(message: ChildMessage) {
        if (message.type === "ready") markReady();
        else self?.onMessage?.(message);
      },
      onExit(_proc, exitCode, signalCode) {
        if (!self || self.exit) return;
        const exit = { exitCode, signal: signalCode === null || signalCode === undefined ? null : String(signalCode) };
        self.exit = exit;
        fail(new Error(`the sandbox process exited before it was ready (${self.describeExit()})`));
        self.markEnded(exit);
      },
    });
    self = new SandboxProcess(proc, ready);
    self.drainStderr();
    const timer = setTimeout(() => {
      fail(new Error(`the sandbox process did not start within ${startTimeoutMs} ms`));
      self.kill();
    }, startTimeoutMs);
    ready.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    return self;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** The end of what the process wrote to stderr, for the runtime's own logs. */
  get stderr(): string {
    return this.stderrTail;
  }

  send(message: ParentMessage): void {
    if (this.alive) this.proc.send(message);
  }

  /** SIGKILL: the only stop a script stuck inside QuickJS cannot delay. */
  kill(): void {
    if (this.alive) this.proc.kill("SIGKILL");
  }

  describeExit(): string {
    if (!this.exit) return "running";
    return this.exit.signal ? `signal ${this.exit.signal}` : `exit code ${this.exit.exitCode}`;
  }

  private drainStderr(): void {
    const decoder = new TextDecoder();
    const reader = this.proc.stderr.getReader();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        this.stderrTail = (this.stderrTail + decoder.decode(value, { stream: true })).slice(-STDERR_TAIL);
      }
    })().catch(() => {});
  }
}
