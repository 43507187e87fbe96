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
  const gate = new HostCallGate(hostCalls);
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
      signal?.removeEventListener("abort", cancel);
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
    // Cancelled (POST /scripts/runs/{id}/cancel): the same stop as the deadline's.
    const cancel = () => {
      sandbox.kill();
      finish({ kind: "cancelled", reason: cancelReason(signal) }, false);
    };
    if (signal?.aborted) queueMicrotask(cancel);
    else signal?.addEventListener("abort", cancel, { once: true });

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
        const { callId, method, args } = message;
        const reply = (text: string) => {
          if (!finished) sandbox.send({ type: "host-reply", runId, callId, reply: text });
        };
        void gate.enter(args.length).then(async (admission) => {
          if (!admission.admitted) return reply(busyReply(admission.message));
          try {
            // A call that waited in line past the run's end never reaches the host.
            if (!finished) reply(await dispatchHostCall(host, method, args, maxReplyBytes, logger));
          } finally {
            gate.leave(args.length);
          }
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

/** What the run's error says about its cancellation: the abort reason when it is a string. */
export function cancelReason(signal: AbortSignal | undefined): string {
  return typeof signal?.reason === "string" ? signal.reason : "the run was cancelled and its sandbox process stopped";
}
