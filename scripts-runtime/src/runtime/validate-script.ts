import { type CompileOutcome, compileScript } from "../compile/compile-script.ts";
import type { CompiledScript, ScriptProblem } from "../compile/compiled-script.ts";
import { locateDefaultExport, locateKey } from "../compile/locate.ts";
import { readDeclaration } from "../declaration/read-declaration.ts";
import type { ScriptDeclaration } from "../declaration/script-declaration.ts";
import { describeEnding } from "./run-error.ts";
import type { ProcessRun } from "./run-in-process.ts";
import { DEFAULT_RUN_LIMITS } from "./run-limits.ts";
import type { RunLimits, RunResult } from "./run-types.ts";

/** A script fit for upload, with what to store, or the exact reason it is refused. */
export type ValidationResult =
  | { ok: true; declaration: ScriptDeclaration; compiled: CompiledScript }
  | { ok: false; error: ScriptProblem };

type Evaluate = (compiled: CompiledScript, limits: RunLimits) => Promise<{ result: RunResult; run: ProcessRun }>;

/**
 * Compiles `source`, evaluates it in a sandbox under a short deadline to read its default export,
 * and checks the declaration (spec: Customer-side scripts, Upload and deploy).
 */
export async function validateWith(
  source: string,
  filename: string,
  timeoutMs: number,
  evaluate: Evaluate,
): Promise<ValidationResult> {
  return validateCompiled(await compileScript(source, filename), source, filename, timeoutMs, evaluate);
}

/**
 * Evaluates a compiled script's top level to read and check its declaration; `source` is what the
 * refusal's line numbers point into.
 */
export async function validateCompiled(
  compiledOutcome: CompileOutcome,
  source: string,
  filename: string,
  timeoutMs: number,
  evaluate: Evaluate,
): Promise<ValidationResult> {
  if (!compiledOutcome.ok) return compiledOutcome;
  const compiled = compiledOutcome.compiled;
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, timeoutMs, maxLogBytes: 16 * 1024 };
  const { result, run } = await evaluate(compiled, limits);
  const refuse = (message: string, place = locateDefaultExport(source)): ValidationResult => ({
    ok: false,
    error: { message, file: filename, ...place },
  });

  if (run.ending.kind !== "outcome" || result.status !== "succeeded" || !run.ending.outcome.declaration) {
    const described = describeEnding(run.ending, compiled, limits);
    const error = described?.error ?? { name: "Error", message: "the script could not be evaluated" };
    const what =
      result.status === "timed_out"
        ? `evaluating the script's top level took longer than ${timeoutMs} ms`
        : `evaluating the script failed: ${error.name}: ${error.message}`;
    const frame = described?.frame;
    return refuse(what, frame ? { line: frame.line, column: frame.column } : undefined);
  }
  const read = readDeclaration(run.ending.outcome.declaration);
  if (!read.ok) {
    const key = read.problem.key;
    return refuse(read.problem.message, key ? locateKey(source, key) : undefined);
  }
  return { ok: true, declaration: read.declaration, compiled };
}
