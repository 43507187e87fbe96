import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import type { RunRequest, RunResult } from "./run-types.ts";
import { ScriptRuntime } from "./script-runtime.ts";

// Two looping scripts must not hold every other script until their deadline.
// The loops' deadline is 30 s; the canaries must start well before it. CANARY_BOUND_MS is generous
// for a shared 2-core machine (a canary takes ~10–50 ms when the machine is quiet) and still far
// under the deadline that used to be the wait.
const LOOP_DEADLINE_MS = 30_000;
const CANARY_BOUND_MS = 5000;

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({
    poolSize: 2,
    reservedProcesses: 1,
    maxRunsPerIntegration: 1,
    maxRunsPerScript: 1,
    queueTimeoutMs: 1500,
    limits: { timeoutMs: LOOP_DEADLINE_MS },
  });
});
afterAll(() => runtime.close());

const start = (body: string, fairness: RunRequest["fairness"], signal?: AbortSignal): Promise<RunResult> =>
  runtime.run({
    script: { source: syncScript(body), filename: "fair.ts" },
    entry: "exec",
    host: new RecordingHost(),
    ...(fairness ? { fairness } : {}),
    ...(signal ? { signal } : {}),
  });
const background = (integration: string, script: string) => ({
  priority: false,
  integration,
  script: `${integration}/${script}`,
});

/** Waits until `count` processes run something (the loops have started); polled, with a deadline. */
async function busy(count: number): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (runtime.processes().filter((p) => !p.idle).length < count) {
    if (performance.now() > deadline) throw new Error(`${count} processes never became busy`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function timed(run: Promise<RunResult>): Promise<{ result: RunResult; ms: number }> {
  const began = performance.now();
  const result = await run;
  return { result, ms: performance.now() - began };
}

describe("a fair pool", () => {
  test("two looping syncs of one integration hold one process; another integration's sync and a lifecycle hook run at once; the loops are cancelled", async () => {
    const first = new AbortController();
    const second = new AbortController();
    const loops = [
      start("for (;;) {}", background("int-a", "loop-1"), first.signal),
      start("for (;;) {}", background("int-a", "loop-2"), second.signal),
    ];
    // One loop runs (one per integration), the other waits its turn.
    await busy(1);
    const other = await timed(start(`return "other";`, background("int-b", "canary")));
    expect(other.result.output).toBe("other");
    expect(other.ms).toBeLessThan(CANARY_BOUND_MS);
    const hook = await timed(start(`return "hook";`, { priority: true, integration: "int-a", script: "int-a/hook" }));
    expect(hook.result.output).toBe("hook");
    expect(hook.ms).toBeLessThan(CANARY_BOUND_MS);

    const cancelledAt = performance.now();
    first.abort("cancelled by the test");
    second.abort("cancelled by the test");
    const ended = await Promise.all(loops);
    expect(performance.now() - cancelledAt).toBeLessThan(CANARY_BOUND_MS);
    for (const result of ended) {
      expect(result.status).toBe("failed");
      expect(result.error).toEqual({ name: "CancelledError", message: "cancelled by the test" });
    }
  }, 60_000);

  test("a background run waiting past the queue timeout fails with script_queue_timeout", async () => {
    const loop = new AbortController();
    const looping = start("for (;;) {}", background("int-c", "loop"), loop.signal);
    await busy(1);
    const waited = start(`return "late";`, background("int-c", "other"));
    await expect(waited).rejects.toMatchObject({ code: "script_queue_timeout" });
    loop.abort("done");
    expect((await looping).error?.name).toBe("CancelledError");
  }, 60_000);

  test("two looping syncs of two integrations take the whole pool; a lifecycle hook still runs on the reserved process", async () => {
    const stop = new AbortController();
    const loops = [
      start("for (;;) {}", background("int-d", "loop"), stop.signal),
      start("for (;;) {}", background("int-e", "loop"), stop.signal),
    ];
    await busy(2);
    const hook = await timed(start(`return "hook";`, { priority: true, integration: "int-d", script: "int-d/hook" }));
    expect(hook.result.output).toBe("hook");
    expect(hook.ms).toBeLessThan(CANARY_BOUND_MS);
    stop.abort("done");
    await Promise.all(loops);
  }, 60_000);
});
