import { type Subprocess, spawn } from "bun";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/** A Junction process started with `bun cli/junction.ts ...`, its output kept for failure messages. */
export interface JunctionProcess {
  name: string;
  proc: Subprocess;
  output(): string;
  /** Resolves once the process said it serves (`junction: <name> listening on`), or throws with its output. */
  listening(timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startJunctionProcess(name: string, args: string[], env: Record<string, string>): JunctionProcess {
  let out = "";
  const proc = spawn(["bun", join(ROOT, "cli/junction.ts"), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>);
  void drain(proc.stderr as ReadableStream<Uint8Array>);
  return {
    name,
    proc,
    output: () => out,
    async listening(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!/junction: \w+ listening on /.test(out)) {
        if (proc.exitCode !== null || Date.now() > deadline) {
          throw new Error(`${name} did not start (exit ${proc.exitCode}):\n${out}`);
        }
        await Bun.sleep(20);
      }
    },
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await proc.exited;
      clearTimeout(timer);
      return proc.exitCode;
    },
  };
}
