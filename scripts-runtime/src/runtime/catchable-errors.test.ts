import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import type { RunResult } from "./run-types.ts";
import { ScriptRuntime } from "./script-runtime.ts";

// What a script does to itself is an error it can catch, or a run that ends
// with a named error, never a sandbox fault or a run held until its deadline.

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, limits: { timeoutMs: 20_000 } });
});
afterAll(() => runtime.close());

const run = (body: string, host = new RecordingHost()): Promise<RunResult> =>
  runtime.run({ script: { source: syncScript(body), filename: "deep.ts" }, entry: "exec", host });
const caught = (expression: string) =>
  run(`try { ${expression}; return "no error"; } catch (err) { return err.name + ": " + err.message; }`);

describe("deeply nested input", () => {
  test.each([
    [
      "JSON.parse of 100,000 nested arrays",
      `JSON.parse("[".repeat(100000) + "]".repeat(100000))`,
      "SyntaxError: stack overflow",
    ],
    ["eval of 100,000 nested brackets", `eval("[".repeat(100000) + "]".repeat(100000))`, "SyntaxError: stack overflow"],
    [
      "eval of 100,000 nested parentheses",
      `eval("(".repeat(100000) + "1" + ")".repeat(100000))`,
      "SyntaxError: stack overflow",
    ],
    [
      "JSON.stringify of 100,000 nested arrays",
      `let v = 1; for (let i = 0; i < 100000; i++) v = [v]; JSON.stringify(v)`,
      "InternalError: stack overflow",
    ],
  ])(
    "%s is a catchable error",
    async (_, expression, expected) => {
      const result = await caught(expression);
      expect(result.status).toBe("succeeded");
      expect(result.output).toBe(expected);
    },
    30_000,
  );

  test("a deep value handed to the script API is refused in the host without recursing: a TypeError", async () => {
    const host = new RecordingHost();
    const result = await run(
      `let v = 1; for (let i = 0; i < 300; i++) v = { a: v };
       try { await nango.setMetadata({ v }); } catch (err) { return err.name + ": " + err.message; }`,
      host,
    );
    expect(result.output).toBe("TypeError: nango.setMetadata: arguments: nested deeper than 256 levels");
    expect(host.calls).toEqual([]);
  }, 30_000);
});

describe("regular expressions", () => {
  test.each([
    ["test", `/(a+)+$/.test("a".repeat(40) + "b")`, "(a+)+$"],
    ["replace", `"a".repeat(40).replace(/(a|a)+b/g, "x")`, "(a|a)+b"],
  ])(
    "catastrophic backtracking in %s ends the run after the match budget: RegExpTimeoutError",
    async (_, expression, pattern) => {
      const started = performance.now();
      const result = await caught(expression);
      expect(result.status).toBe("failed");
      expect(result.error).toEqual({
        name: "RegExpTimeoutError",
        message: `a regular expression match ran longer than 1000 ms and was stopped: /${pattern}/`,
      });
      // The run's deadline is 20 s; the budget is 1 s.
      expect(performance.now() - started).toBeLessThan(8000);
      // The process stays usable.
      expect((await run(`return "fine";`)).output).toBe("fine");
    },
    30_000,
  );

  test("ordinary matches go through every method as before", async () => {
    const result = await run(
      `return [/b+/.test("abbbc"), "a-b-c".split(/-/).length, "xay".replace(/a/, "b"), [..."a1b2".matchAll(/\\d/g)].length,
               "abc".search(/c/), "aXbX".match(/X/g).length, /(\\d+)/.exec("ab12")[1]];`,
    );
    expect(result.output).toEqual([true, 3, "xby", 2, 2, 2, "12"]);
  }, 30_000);
});

describe("script API calls beyond the sandbox's caps", () => {
  test("the 65th call in flight is a ScriptApiError 429 too_many_calls; the first 64 are answered", async () => {
    const result = await run(
      `const all = await Promise.allSettled(Array.from({ length: 100 }, () => nango.getMetadata()));
       const refused = all.filter((r) => r.status === "rejected").map((r) => [r.reason.name, r.reason.status, r.reason.code]);
       return { answered: all.length - refused.length, refused: refused.length, first: refused[0] };`,
    );
    expect(result.output).toEqual({ answered: 64, refused: 36, first: ["ScriptApiError", 429, "too_many_calls"] });
  }, 30_000);
});
