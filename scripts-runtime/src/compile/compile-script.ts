import { ALLOWED_IMPORTS, type CompiledScript, MAX_SOURCE_BYTES, type ScriptProblem } from "./compiled-script.ts";
import { locateImport } from "./locate.ts";

export type CompileOutcome = { ok: true; compiled: CompiledScript } | { ok: false; error: ScriptProblem };

const FILENAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*\.(ts|mts|js|mjs)$/;
/** A folder that exists nowhere, so that the bundler finds no tsconfig or package.json to apply. */
const VIRTUAL_ROOT = "/__junction_script__";

/**
 * Strips TypeScript and checks imports, then emits an ES module with a source map. Bun's bundler
 * (the same parser as `Bun.Transpiler`) is used for the output because the transpiler alone keeps
 * no source map, and stack frames must point at the line the customer wrote.
 */
export async function compileScript(source: string, filename: string): Promise<CompileOutcome> {
  const at = (message: string, line = 1, column = 1): CompileOutcome => ({
    ok: false,
    error: { message, file: filename, line, column },
  });
  if (filename.length > 200 || !FILENAME.test(filename)) {
    return at("the file name must be a relative path ending in .ts or .js, made of letters, digits, _ . - and /");
  }
  if (Buffer.byteLength(source) > MAX_SOURCE_BYTES) return at(`the script is larger than ${MAX_SOURCE_BYTES} bytes`);

  const loader = /\.m?ts$/.test(filename) ? "ts" : "js";
  let stripped: string;
  try {
    stripped = new Bun.Transpiler({ loader, target: "browser" }).transformSync(source);
  } catch (err) {
    const problem = buildProblem(err);
    return at(problem.message, problem.line, problem.column);
  }
  for (const found of new Bun.Transpiler({ loader: "js" }).scanImports(stripped)) {
    const refusal = importRefusal(found.kind, found.path);
    if (refusal) {
      const place = locateImport(source, found.path);
      return at(refusal, place.line, place.column);
    }
  }
  return bundle(source, filename, at);
}

async function bundle(
  source: string,
  filename: string,
  at: (message: string, line?: number, column?: number) => CompileOutcome,
): Promise<CompileOutcome> {
  const entry = `${VIRTUAL_ROOT}/${filename}`;
  const built = await Bun.build({
    entrypoints: [entry],
    files: { [entry]: source },
    sourcemap: "external",
    format: "esm",
    target: "browser",
    external: ["*"],
    throw: false,
  });
  if (!built.success) {
    const problem = buildProblem(built.logs.find((l) => l.level === "error") ?? built.logs[0]);
    return at(problem.message, problem.line, problem.column);
  }
  const code = built.outputs.find((o) => o.kind === "entry-point");
  const map = built.outputs.find((o) => o.kind === "sourcemap");
  if (!code || !map) return at("the compiler produced no output");
  const sourceHash = new Bun.CryptoHasher("sha256").update(source).digest("hex");
  return { ok: true, compiled: { filename, code: await code.text(), sourceMap: await map.text(), sourceHash } };
}

/** Why an import found in the script is refused, or null when it is allowed. */
function importRefusal(kind: string, path: string): string | null {
  if (kind === "require-call" || kind === "require-resolve") return `require("${path}") is not available in scripts`;
  if (kind === "dynamic-import") return `import("${path}") is not allowed in scripts`;
  if (ALLOWED_IMPORTS.includes(path)) return null;
  return `import "${path}" is not allowed: scripts may import only ${ALLOWED_IMPORTS.map((p) => `"${p}"`).join(", ")}`;
}

/** A Bun BuildMessage (or an AggregateError of them) as a message and a 1-based place. */
function buildProblem(err: unknown): { message: string; line: number; column: number } {
  const first = err instanceof AggregateError ? err.errors[0] : err;
  const message = (first as { message?: unknown })?.message;
  const position = (first as { position?: { line?: number; column?: number } | null })?.position;
  return {
    message: typeof message === "string" ? message : "the script does not parse",
    line: Math.max(1, position?.line ?? 1),
    column: Math.max(1, position?.column ?? 1),
  };
}
