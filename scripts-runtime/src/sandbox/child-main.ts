/**
 * Entry point of a sandbox process (spawned by SandboxProcess with an empty environment). Runs
 * one script at a time, in QuickJS, and talks to the parent only through IPC messages. A QuickJS
 * instance is reused by the next run with the same memory limit after a clean run, and replaced
 * after a run that hit a limit or a fault.
 */
import type { ChildMessage, ParentMessage, RunJob } from "../protocol.ts";
import { type QuickJSEngine, QuickJSEngines } from "./quickjs-engine.ts";
import { SandboxRun } from "./sandbox-run.ts";

/** Runs an instance serves before it is replaced, so that heap fragmentation cannot build up. */
const RUNS_PER_ENGINE = 200;

const send = (message: ChildMessage) => process.send?.(message);
const engines = new QuickJSEngines();
let engine: { value: QuickJSEngine; runs: number } | null = null;
let current: { runId: string; run: SandboxRun } | null = null;

async function start(runId: string, job: RunJob): Promise<void> {
  if (current) {
    const reason = { name: "SandboxFault", message: "the sandbox process was given a run while busy" };
    send({ type: "done", runId, outcome: { status: "crashed", reason, logsTruncated: false, heapBytes: 0 } });
    return;
  }
  if (!engine || engine.value.memoryBytes !== job.limits.memoryBytes || engine.runs >= RUNS_PER_ENGINE) {
    engine = { value: await engines.create(job.limits.memoryBytes), runs: 0 };
  }
  engine.runs++;
  const run = new SandboxRun(engine.value, job, {
    hostCall: (callId, method, args) => send({ type: "host-call", runId, callId, method, args }),
    log: (level, message) => send({ type: "log", runId, level, message }),
  });
  current = { runId, run };
  const end = await run.execute();
  current = null;
  if (!end.engineReusable) engine = null;
  send({ type: "done", runId, outcome: end.outcome });
}

process.on("message", (message: ParentMessage) => {
  if (message.type === "run") {
    void start(message.runId, message.job);
  } else if (message.type === "host-reply" && current?.runId === message.runId) {
    current.run.reply(message.callId, message.reply);
  }
});
// The parent is gone: nothing can use this process any more.
process.on("disconnect", () => process.exit(0));

engines.warm();
send({ type: "ready" });
