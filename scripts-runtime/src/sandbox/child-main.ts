/**
 * Entry point of a sandbox process (spawned by SandboxProcess with an empty environment). Runs
 * one script at a time, in QuickJS, and talks to the parent only through IPC messages. A QuickJS
 * instance is reused by the next run with the same memory limit after a clean run, and replaced
 * after a run that hit a limit or a fault.
 */
import type { ChildMessage, ChildOutcome, ParentMessage, RunJob } from "../protocol.ts";
import { INITIAL_HEAP_BYTES, type QuickJSEngine, QuickJSEngines } from "./quickjs-engine.ts";
import { SandboxRun } from "./sandbox-run.ts";
import { importsZod, sandboxZodSource } from "./sandbox-zod.ts";

/** Runs an instance serves before it is replaced, so that heap fragmentation cannot build up. */
const RUNS_PER_ENGINE = 200;
/** A run whose heap grew past this retires its process (see below). */
const RETIRE_AFTER_HEAP_BYTES = 32 * 1024 * 1024;

const send = (message: ChildMessage) => process.send?.(message);
const engines = new QuickJSEngines();
let engine: { value: QuickJSEngine; runs: number } | null = null;
let current: { runId: string; run: SandboxRun } | null = null;

async function start(runId: string, job: RunJob): Promise<void> {
  if (current) {
    send({ type: "done", runId, outcome: fault("the sandbox process was given a run while busy") });
    return;
  }
  let used: { value: QuickJSEngine; runs: number };
  let zodSource: string | null = null;
  try {
    if (importsZod(job.code)) zodSource = await sandboxZodSource();
  } catch (err) {
    send({ type: "done", runId, outcome: fault(String(err)) });
    return;
  }
  try {
    if (!engine || engine.value.memoryBytes !== job.limits.memoryBytes || engine.runs >= RUNS_PER_ENGINE) {
      engine = { value: await engines.create(job.limits.memoryBytes), runs: 0 };
    }
    used = engine;
  } catch (err) {
    engine = null;
    send({ type: "done", runId, outcome: fault(`QuickJS could not start: ${String(err)}`) });
    return;
  }
  used.runs++;
  const run = new SandboxRun(
    used.value,
    job,
    {
      hostCall: (callId, method, args) => send({ type: "host-call", runId, callId, method, args }),
      log: (level, message) => send({ type: "log", runId, level, message }),
    },
    zodSource,
  );
  current = { runId, run };
  const end = await run.execute();
  current = null;
  // Reuse only an instance whose memory never grew: its next run then starts from the same clean
  // 16 MiB, and the heap size it reports is that run's own.
  const heap = used.value.memory.buffer.byteLength;
  if (!end.engineReusable || heap > INITIAL_HEAP_BYTES) engine = null;
  // A dropped instance's memory goes back to the system only when the garbage collector gets to
  // it; past RETIRE_AFTER_HEAP_BYTES the process asks to be replaced instead, so that an old heap
  // and a new one never add up in one process.
  const retire = heap > RETIRE_AFTER_HEAP_BYTES;
  send({ type: "done", runId, outcome: retire ? { ...end.outcome, retire } : end.outcome });
}

function fault(message: string): ChildOutcome {
  return { status: "crashed", reason: { name: "SandboxFault", message }, logsTruncated: false, heapBytes: 0 };
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
