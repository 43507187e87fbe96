import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import type { ChildMessage, ParentMessage } from "../protocol.ts";

const CHILD_MAIN = fileURLToPath(new URL("../sandbox/child-main.ts", import.meta.url));
const STDERR_TAIL = 4096;
/**
 * The child's native stack. QuickJS checks its own (shadow) stack only; deep parsing (JSON.parse,
 * eval of nested brackets) takes far more native stack per level than shadow stack, and Bun's
 * default 8 MiB ran out first ("Maximum call stack size exceeded" killed the run). With 32 MiB,
 * QuickJS's 256 KiB limit is always reached first and throws a catchable "stack overflow".
 * The stack is virtual memory: only the pages a script touches count.
 */
const CHILD_STACK_KIB = 32 * 1024;
/** JSC's own limit, a little under the stack, so that it throws before the kernel faults. */
const JSC_STACK_BYTES = (CHILD_STACK_KIB - 1024) * 1024;
/**
 * `ulimit -s` applies at exec. A host that refuses to raise it keeps its stack and JSC's default
 * limit (the process then works as before, without the deeper guarantee).
 */
const RAISE_STACK = `ulimit -s ${CHILD_STACK_KIB} 2>/dev/null || unset BUN_JSC_maxPerThreadStackUsage; exec "$0" "$@"`;

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/**
 * One sandbox process: a Bun child running `child-main.ts` with an environment holding nothing of
 * the service's (no secret is there to find, even for code that got out of QuickJS), spoken to over IPC.
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
    const proc = Bun.spawn(["/bin/sh", "-c", RAISE_STACK, process.execPath, CHILD_MAIN], {
      // Nothing of the service's: only JSC's stack limit (see CHILD_STACK_KIB).
      env: { BUN_JSC_maxPerThreadStackUsage: String(JSC_STACK_BYTES) },
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
