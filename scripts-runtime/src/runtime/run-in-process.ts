import type { Clock, Logger } from "@junction/platform";
import type { ChildMessage, RunJob } from "../protocol.ts";
import { truncationMarker } from "../sandbox/log-budget.ts";
import { dispatchHostCall } from "./host-dispatch.ts";
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
  logger?: Logger,
): Promise<ProcessRun> {
  const runId = crypto.randomUUID();
  const logs: LogEntry[] = [];
  let logBytes = 0;
  let logsTruncated = false;
  let heard = false;
  // The child enforces the cap; the parent only guards against a child gone wrong.
  const logCeiling = job.limits.maxLogBytes + Buffer.byteLength(truncationMarker(job.limits.maxLogBytes));
  const maxReplyBytes = job.limits.memoryBytes;

  return new Promise<ProcessRun>((resolve) => {
    let finished = false;
    const finish = (ending: Ending, reusable: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      sandbox.onMessage = null;
      if (ending.kind === "outcome" && ending.outcome.logsTruncated) logsTruncated = true;
      resolve({ ending, logs, logsTruncated, reusable, heard });
    };
    // Deliberately wall-clock, not the injected Clock: a test clock jumping a day ahead to fire
    // a schedule must not kill every script that is running at that moment.
    const deadline = setTimeout(() => {
      sandbox.kill();
      finish({ kind: "killed_at_deadline" }, false);
    }, job.limits.timeoutMs);

    sandbox.onMessage = (message: ChildMessage) => {
      if (finished || !("runId" in message) || message.runId !== runId) return;
      heard = true;
      if (message.type === "log") {
        logBytes += Buffer.byteLength(message.message);
        if (logBytes > logCeiling) {
          logsTruncated = true;
          return;
        }
        const entry: LogEntry = { level: message.level, message: message.message, at: clock.now() };
        logs.push(entry);
        host.onLog?.(entry);
      } else if (message.type === "host-call") {
        void dispatchHostCall(host, message.method, message.args, maxReplyBytes, logger).then((reply) => {
          if (!finished) sandbox.send({ type: "host-reply", runId, callId: message.callId, reply });
        });
      } else if (message.type === "done") {
        const outcome = message.outcome;
        finish({ kind: "outcome", outcome }, outcome.status !== "crashed" && !outcome.retire);
      }
    };
    void sandbox.ended.then((exit) => finish({ kind: "process_exited", ...exit }, false));
    sandbox.runs++;
    sandbox.send({ type: "run", runId, job });
  });
}
