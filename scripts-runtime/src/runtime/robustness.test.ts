import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import type { RunLimits, RunResult } from "./run-types.ts";
import { ScriptRuntime } from "./script-runtime.ts";

// Each misbehaving script gets a clear error and status, and a normal run
// right after it succeeds on the same runtime.

const MiB = 1024 * 1024;
// Generous by default (the machine is shared); the tests about deadlines use SHORT.
const LIMITS: RunLimits = { memoryBytes: 64 * MiB, timeoutMs: 20_000, maxLogBytes: 8 * 1024 };
const SHORT = { timeoutMs: 1500 };
/** Per-test deadline of bun:test: these tests start processes and fill heaps on a shared machine. */
const SLOW = 30_000;
let runtime: ScriptRuntime;
let noEarlyStop: ScriptRuntime;

beforeAll(async () => {
  [runtime, noEarlyStop] = await Promise.all([
    ScriptRuntime.start({ poolSize: 2, limits: LIMITS }),
    // Only the parent's kill at the deadline: proves it works on its own.
    ScriptRuntime.start({ poolSize: 1, limits: LIMITS, earlyStop: false }),
  ]);
});
afterAll(() => Promise.all([runtime.close(), noEarlyStop.close()]));

const run = (body: string, host = new RecordingHost(), on = runtime, limits: Partial<RunLimits> = {}) =>
  on.run({ script: { source: syncScript(body), filename: "bad.ts" }, entry: "exec", host, limits });

/** The runtime still works: a normal script succeeds right after. */
async function expectStillUsable(on = runtime) {
  const result = await run(`nango.log("fine"); return await nango.getWebhookURL();`, new RecordingHost(), on);
  expect(result.status).toBe("succeeded");
  expect(result.output).toBe("https://junction.example.test/webhook/env_1/google-calendar");
}

/** Peak resident memory of a process, from /proc (Linux). */
const peakRss = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;

describe("scripts that never return", () => {
  test.each([
    ["a busy loop", "while (true) {}"],
    ["a busy loop that catches everything", "for (;;) { try { for (;;) {} } catch {} }"],
    ["an endless chain of awaits", "for (;;) await null;"],
    ["an API call that never answers", "await nango.get({ endpoint: '/hang' });"],
  ])(
    "%s is stopped at the deadline: timed_out",
    async (_, body) => {
      const host = new RecordingHost();
      host.routes.set("/hang", () => new Promise(() => {}));
      const started = performance.now();
      const result = await run(body, host, runtime, SHORT);
      expect(result.status).toBe("timed_out");
      expect(result.error).toEqual({
        name: "TimeoutError",
        message: "the script did not finish within its 1500 ms deadline and was stopped",
      });
      expect(performance.now() - started).toBeLessThan(SHORT.timeoutMs + 5000);
      await expectStillUsable();
    },
    SLOW,
  );

  test(
    "a busy loop is killed by the parent at the deadline when the sandbox cannot stop it",
    async () => {
      const before = noEarlyStop.processes().map((p) => p.pid);
      const result = await run("while (true) {}", new RecordingHost(), noEarlyStop, SHORT);
      expect(result.status).toBe("timed_out");
      expect(result.error?.name).toBe("TimeoutError");
      await expectStillUsable(noEarlyStop);
      // the killed process was replaced by a new one
      expect(noEarlyStop.processes().map((p) => p.pid)).not.toEqual(before);
    },
    SLOW,
  );

  test(
    "an awaited promise that nothing can resolve fails at once, without waiting for the deadline",
    async () => {
      const started = performance.now();
      const result = await run("await new Promise(() => {}); return 'unreachable';", new RecordingHost(), runtime, {
        timeoutMs: 60_000,
      });
      expect(result.status).toBe("failed");
      expect(result.error?.name).toBe("StalledError");
      expect(result.error?.message).toContain("exec is waiting on a promise that nothing can settle");
      expect(performance.now() - started).toBeLessThan(30_000);
      await expectStillUsable();
    },
    SLOW,
  );
});

describe("scripts that allocate without end", () => {
  test.each([
    ["growing an array of strings", "const a = []; for (;;) a.push('x'.repeat(1e5) + a.length);"],
    ["one 1 GiB buffer", "return new ArrayBuffer(1024 ** 3).byteLength;"],
    ["many 16 MiB buffers, kept", "const keep = []; for (;;) keep.push(new ArrayBuffer(16 * 1024 * 1024));"],
    ["a string doubling", "let s = 'x'; for (;;) s = s.repeat(2);"],
  ])(
    "%s dies with a memory limit error",
    async (_, body) => {
      const result = await run(body);
      expect(result.status).toBe("memory_exceeded");
      expect(result.error).toEqual({
        name: "MemoryLimitError",
        message: "the script exceeded its memory limit of 64 MiB and was stopped",
      });
      expect(result.heapBytes ?? 0).toBeLessThanOrEqual(LIMITS.memoryBytes);
      await expectStillUsable();
    },
    30_000,
  );

  test.each([64, 256])(
    "a process whose script fills a %i MiB heap stays under the cap",
    async (mib) => {
      // The host measures the sandbox process while the script holds its full heap, run after run.
      const peaks: number[] = [];
      const host = new RecordingHost();
      host.getMetadata = async () => {
        const busy = runtime.processes().find((p) => !p.idle);
        peaks.push(busy ? peakRss(busy.pid) : Number.NaN);
        return {};
      };
      for (let i = 0; i < 3; i++) {
        const result = await run(
          `const keep = [];
         try { for (;;) keep.push(new ArrayBuffer(1024 * 1024)); } catch {}
         await nango.getMetadata();
         return keep.length;`,
          host,
          runtime,
          { memoryBytes: mib * MiB },
        );
        expect(result.status).toBe("succeeded");
        expect(result.output as number).toBeGreaterThan(mib / 2);
      }
      // A Bun process with QuickJS loaded is ~40-60 MiB before any script; the heap adds at most the cap.
      expect(peaks).toHaveLength(3);
      for (const peak of peaks) expect(peak).toBeLessThan((mib + 100) * MiB);
      await expectStillUsable();
    },
    60_000,
  );

  test(
    "deep recursion is a catchable stack overflow, not a dead process",
    async () => {
      const result = await run("function f(n) { return f(n + 1) + 1; } return f(0);");
      expect(result.status).toBe("failed");
      expect(result.error).toMatchObject({ name: "InternalError", message: "stack overflow" });
      expect(result.error?.stack?.split("\n").length).toBeLessThanOrEqual(21);
      await expectStillUsable();
    },
    SLOW,
  );
});

describe("scripts that throw", () => {
  test.each([
    ["a string", `throw "boom";`, 'the script threw a string instead of an Error: "boom"'],
    [
      "an object",
      "throw { code: 42, reason: 'nope' };",
      'the script threw an object instead of an Error: {"code":42,"reason":"nope"}',
    ],
    ["undefined", "throw undefined;", "the script threw undefined instead of an Error"],
    ["null", "throw null;", "the script threw null instead of an Error"],
    ["a number", "throw 42;", "the script threw a number instead of an Error: 42"],
    [
      "a rejected promise of a string",
      "await Promise.reject('nope');",
      'the script threw a string instead of an Error: "nope"',
    ],
    [
      "an object with a throwing getter",
      "throw { get x() { throw new Error('no'); } };",
      "the script threw an object instead of an Error: ",
    ],
  ])(
    "%s fails the run with a clear message",
    async (_, body, message) => {
      const result = await run(body);
      expect(result.status).toBe("failed");
      expect(result.error?.name).toBe("ThrownValue");
      expect(result.error?.message).toStartWith(message);
      await expectStillUsable();
    },
    SLOW,
  );

  test(
    "an Error subclass keeps its name and message",
    async () => {
      const result = await run(
        "class QuotaError extends Error { name = 'QuotaError' } throw new QuotaError('over quota');",
      );
      expect(result.error).toMatchObject({ name: "QuotaError", message: "over quota" });
    },
    SLOW,
  );

  test(
    "a result that is not JSON fails the run and says so",
    async () => {
      const result = await run("const a = {}; a.self = a; return a;");
      expect(result.status).toBe("failed");
      expect(result.error?.message).toContain("the value returned by exec is not JSON");
    },
    SLOW,
  );
});

describe("scripts that print megabytes of logs", () => {
  test(
    "logs are cut at maxLogBytes with a marker; the run itself succeeds",
    async () => {
      const result = await run("for (let i = 0; i < 50000; i++) console.log('x'.repeat(100) + i); return 'done';");
      expect(result.status).toBe("succeeded");
      expect(result.output).toBe("done");
      expect(result.logsTruncated).toBe(true);
      const bytes = result.logs.slice(0, -1).reduce((n, l) => n + Buffer.byteLength(l.message), 0);
      expect(bytes).toBe(LIMITS.maxLogBytes);
      expect(result.logs.at(-1)).toMatchObject({
        level: "warn",
        message: `[logs truncated: this run logged more than ${LIMITS.maxLogBytes} bytes; later lines were dropped]`,
      });
      await expectStillUsable();
    },
    SLOW,
  );

  test(
    "one enormous line is cut too",
    async () => {
      const result = await run("console.error('y'.repeat(5 * 1024 * 1024)); return 1;");
      expect(result.logsTruncated).toBe(true);
      expect(result.logs[0]?.message.length).toBe(LIMITS.maxLogBytes);
      expect(result.logs[0]?.level).toBe("error");
    },
    SLOW,
  );
});

describe("a sandbox process that dies", () => {
  test(
    "a process killed mid-run ends the run as crashed, and is replaced",
    async () => {
      const host = new RecordingHost();
      let calledBack: () => void = () => {};
      const called = new Promise<void>((resolve) => {
        calledBack = resolve;
      });
      host.routes.set("/slow", () => {
        calledBack();
        return new Promise(() => {});
      });
      const running = run("await nango.get({ endpoint: '/slow' });", host, runtime, { timeoutMs: 20_000 });
      await called;
      const busy = runtime.processes().find((p) => !p.idle);
      expect(busy).toBeDefined();
      process.kill(busy!.pid, "SIGKILL");
      const result: RunResult = await running;
      expect(result.status).toBe("crashed");
      expect(result.error).toEqual({
        name: "SandboxCrash",
        message: "the sandbox process running the script died (signal SIGKILL); the run was abandoned",
      });
      await expectStillUsable();
      expect(runtime.processes().map((p) => p.pid)).not.toContain(busy!.pid);
    },
    SLOW,
  );

  test(
    "an idle process killed from outside is replaced before the next runs",
    async () => {
      const victim = runtime.processes()[0]!.pid;
      process.kill(victim, "SIGKILL");
      for (let i = 0; i < 3; i++) await expectStillUsable();
      expect(runtime.processes().map((p) => p.pid)).not.toContain(victim);
    },
    SLOW,
  );
});

describe("concurrency", () => {
  test(
    "many runs in parallel on a pool of two all complete, each with its own result",
    async () => {
      const host = new RecordingHost();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          run(`await nango.updateMetadata({ ["k${i}"]: ${i} }); nango.log("run ${i}"); return ${i} * 2;`, host),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(40).fill("succeeded"));
      expect(results.map((r) => r.output)).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
      expect(results.map((r) => r.logs[0]?.message)).toEqual(Array.from({ length: 40 }, (_, i) => `run ${i}`));
      expect(Object.keys(host.metadata)).toHaveLength(40);
      expect(runtime.processes()).toHaveLength(2);
    },
    SLOW,
  );

  test(
    "a misbehaving run does not disturb the runs beside it",
    async () => {
      const results = await Promise.all([
        run("while (true) {}", new RecordingHost(), runtime, SHORT),
        run("const a = []; for (;;) a.push('x'.repeat(1e5));"),
        ...Array.from({ length: 10 }, (_, i) => run(`return ${i};`)),
      ]);
      expect(results[0]?.status).toBe("timed_out");
      expect(results[1]?.status).toBe("memory_exceeded");
      expect(results.slice(2).map((r) => r.output)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    },
    SLOW,
  );
});

describe("limits", () => {
  test(
    "limits out of bounds are refused with a stable code",
    async () => {
      await expect(run("return 1;", new RecordingHost(), runtime, { memoryBytes: 1024 })).rejects.toMatchObject({
        code: "invalid_script_limits",
      });
    },
    SLOW,
  );
});
