import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import { ScriptRuntime } from "./script-runtime.ts";

// Each test makes the script try a way out and then checks, from outside, that it did not get
// out: a marker file that must not exist, a secret that must not show up anywhere, host state
// that must be untouched. A test fails if the script gets out, whatever the script reports.

const SECRET = `sk-escape-test-${crypto.randomUUID()}`;
const dir = mkdtempSync(join(tmpdir(), "junction-escape-"));
const marker = join(dir, "escaped.txt");
let runtime: ScriptRuntime;

beforeAll(async () => {
  process.env.JUNCTION_ESCAPE_TEST_SECRET = SECRET;
  runtime = await ScriptRuntime.start({ poolSize: 2, limits: { timeoutMs: 10_000 } });
});
afterAll(async () => {
  delete process.env.JUNCTION_ESCAPE_TEST_SECRET;
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `attempt` and returns the whole result as text, for "the secret is not in it" checks. */
async function attempt(body: string, host = new RecordingHost()) {
  const result = await runtime.run({
    script: { source: syncScript(body), filename: "escape.ts" },
    entry: "exec",
    host,
  });
  return { result, text: JSON.stringify(result) };
}

/**
 * Runs each probe through eval, so that the upload checks (which refuse `require` and `import()`)
 * cannot stop it before it runs: what is tested is the sandbox itself. One refusal does not stop
 * the others; the result maps each probe to what it returned or to "threw <name>".
 */
const probes = (list: string[]) =>
  `const out = {};
   for (const probe of ${JSON.stringify(list)}) {
     try { const v = await eval(probe); out[probe] = typeof v === "string" ? v.slice(0, 200) : typeof v; }
     catch (e) { out[probe] = "threw " + (e && e.name); }
   }
   return out;`;

describe("sandbox escapes", () => {
  test("host globals are not there: process, Bun, require, fetch, module, Deno, WebAssembly", async () => {
    // Looked up at run time (eval, globalThis[name]): the compiler cannot see or fold these.
    const names = ["process", "Bun", "require", "fetch", "module", "exports", "Deno", "WebAssembly"];
    names.push("XMLHttpRequest", "std", "os", "__filename", "global", "Buffer", "setImmediate", "queueMicrotask");
    const { result } = await attempt(
      `return ${JSON.stringify(names)}.map((name) => [eval("typeof " + name), typeof globalThis[name]].join("/"));`,
    );
    expect(result.output).toEqual(names.map(() => "undefined/undefined"));
  });

  test("constructor.constructor, Function and eval stay inside QuickJS", async () => {
    const { result, text } = await attempt(
      probes([
        `globalThis.constructor.constructor("return typeof process")()`,
        `typeof Function("return this")().process`,
        `Function("return typeof Bun")()`,
        `(0, eval)("typeof require")`,
        `eval("typeof fetch")`,
        `nango.get.constructor("return typeof process")()`,
        `(async () => {}).constructor("return typeof process")().then((v) => v)`,
        `Object.getPrototypeOf(function* () {}).constructor("yield typeof process")().next().value`,
        `[].constructor.constructor("return globalThis")().process === undefined ? "none" : "found"`,
        `Reflect.ownKeys(globalThis).filter((k) => typeof k === "string" && /^(process|Bun|require|fetch|__junction_native|native)$/.test(k)).join(",") || "none"`,
      ]),
    );
    expect(result.status).toBe("succeeded");
    expect(result.output).toEqual({
      'globalThis.constructor.constructor("return typeof process")()': "undefined",
      'typeof Function("return this")().process': "undefined",
      'Function("return typeof Bun")()': "undefined",
      '(0, eval)("typeof require")': "undefined",
      'eval("typeof fetch")': "undefined",
      'nango.get.constructor("return typeof process")()': "undefined",
      '(async () => {}).constructor("return typeof process")().then((v) => v)': "undefined",
      'Object.getPrototypeOf(function* () {}).constructor("yield typeof process")().next().value': "undefined",
      '[].constructor.constructor("return globalThis")().process === undefined ? "none" : "found"': "none",
      'Reflect.ownKeys(globalThis).filter((k) => typeof k === "string" && /^(process|Bun|require|fetch|__junction_native|native)$/.test(k)).join(",") || "none"':
        "none",
    });
    expect(text).not.toContain(SECRET);
  });

  test("import() of a host module is refused at run time, even when hidden from the upload check in eval", async () => {
    const { result } = await attempt(
      `const out = [];
       for (const name of ["node:fs", "fs", "bun", "node:child_process", "/etc/passwd", "./other.ts", "nango"]) {
         try { const m = await eval("import(" + JSON.stringify(name) + ")"); out.push(name + ": loaded " + Object.keys(m).join("|")); }
         catch (e) { out.push(name + ": " + e.message); }
       }
       return out;`,
    );
    expect(result.output).toEqual([
      'node:fs: import "node:fs" is not available in scripts',
      'fs: import "fs" is not available in scripts',
      'bun: import "bun" is not available in scripts',
      'node:child_process: import "node:child_process" is not available in scripts',
      'import "/etc/passwd" is not available in scripts'.replace(/^/, "/etc/passwd: "),
      './other.ts: import "other.ts" is not available in scripts',
      "nango: loaded ActionError|ScriptApiError|createAction|createOnEvent|createSync|default",
    ]);
  });

  test("no way to write a file: the marker file does not exist afterwards", async () => {
    const path = JSON.stringify(marker);
    const list = [
      `require("fs").writeFileSync(${path}, "x")`,
      `Bun.write(${path}, "x")`,
      `process.binding("fs")`,
      `globalThis.constructor.constructor("return process")().mainModule.require("fs").writeFileSync(${path}, "x")`,
      `import("node:fs").then((fs) => fs.writeFileSync(${path}, "x"))`,
      `std.open(${path}, "w").puts("x")`,
      `os.open(${path}, 65)`,
    ];
    const { result } = await attempt(probes(list));
    expect(result.status).toBe("succeeded");
    // every probe ran and was refused
    expect(Object.keys(result.output as object)).toEqual(list);
    for (const outcome of Object.values(result.output as Record<string, string>)) expect(outcome).toStartWith("threw ");
    expect(existsSync(marker)).toBe(false);
  });

  test("the service's environment is not readable, and the sandbox process does not even have it", async () => {
    const list = [
      `process.env.JUNCTION_ESCAPE_TEST_SECRET`,
      `Bun.env.JUNCTION_ESCAPE_TEST_SECRET`,
      `globalThis.constructor.constructor("return process.env")().JUNCTION_ESCAPE_TEST_SECRET`,
      `std.getenv("JUNCTION_ESCAPE_TEST_SECRET")`,
      `import("node:process").then((p) => p.env.JUNCTION_ESCAPE_TEST_SECRET)`,
      `JSON.stringify(Object.getOwnPropertyNames(globalThis))`,
    ];
    const { result, text } = await attempt(probes(list));
    expect(result.status).toBe("succeeded");
    expect(Object.keys(result.output as object)).toEqual(list);
    expect(text).not.toContain(SECRET);
    // The child was spawned with an empty environment: even code that got out of QuickJS finds nothing.
    for (const { pid } of runtime.processes()) {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      expect(environ).not.toContain(SECRET);
      expect(environ).not.toContain("JUNCTION_");
    }
  });

  test("the parent's functions cannot be called: only the script API reaches the host, with checked arguments", async () => {
    const host = new RecordingHost();
    const { result } = await attempt(
      `const globals = Reflect.ownKeys(globalThis).map(String).filter((k) => /native|hostCall|^__junction(?!Nango)/i.test(k));
       // tamper with what the prelude's own checks rely on, to get a forged call past them
       Array.prototype.includes = () => true;
       Object.keys = () => [];
       const outcomes = [];
       for (const config of [{ endpoint: "/x", evil: true }, { endpoint: "/x", method: "GET", headers: { a: 1 } }]) {
         try { await nango.get(config); outcomes.push("accepted"); } catch (e) { outcomes.push(e.name + ": " + e.message); }
       }
       return { globals, outcomes };`,
      host,
    );
    expect(result.status).toBe("succeeded");
    expect(result.output).toEqual({
      globals: [],
      outcomes: [
        expect.stringMatching(/^TypeError: nango\.proxy: argument 1: Unrecognized key: "evil"/),
        expect.stringMatching(/^TypeError: nango\.proxy: argument 1 \(headers\.a\)/),
      ],
    });
    expect(host.calls).toEqual([]);
  });

  test("prototype pollution inside the sandbox does not reach the host process", async () => {
    const host = new RecordingHost();
    const { result } = await attempt(
      `Object.prototype.polluted = "yes";
       Array.prototype.push = () => { throw new Error("hijacked"); };
       await nango.setMetadata(JSON.parse('{"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}, "ok": 1}'));
       return "done";`,
      host,
    );
    expect(result.status).toBe("succeeded");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(host.metadata)).toBe(Object.prototype);
    expect((host.metadata as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(host.metadata.ok).toBe(1);
  });

  test("a script that bends JSON for itself only fails itself, clearly", async () => {
    const { result } = await attempt(`Object.prototype.toJSON = () => 5; throw new Error("x");`);
    expect(result.status).toBe("failed");
    expect(result.error?.name).toBe("ScriptInvalid");
    await expect(attempt("return 1;")).resolves.toMatchObject({ result: { status: "succeeded", output: 1 } });
  });

  test("runs do not share state: globals set by one run are gone in the next", async () => {
    await attempt(`globalThis.leak = "${SECRET}"; Object.prototype.leaked = "${SECRET}"; return 1;`);
    for (let i = 0; i < 4; i++) {
      const { result, text } = await attempt(`return [typeof globalThis.leak, typeof ({}).leaked];`);
      expect(result.output).toEqual(["undefined", "undefined"]);
      expect(text).not.toContain(SECRET);
    }
  });
});
