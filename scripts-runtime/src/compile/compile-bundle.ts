import type { CompileOutcome } from "./compile-script.ts";
import { ALLOWED_IMPORTS } from "./compiled-script.ts";

/** Largest bundle accepted, in bytes: Nango's CLI inlines the source map and every imported file. */
export const MAX_BUNDLE_BYTES = 4 * 1024 * 1024;
const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * Turns the CommonJS file Nango's CLI builds for a zero-yaml script (esbuild's output, with
 * `require("zod")` and the default export already a plain declaration object) into the ES module
 * the sandbox runs: the file runs unchanged inside a function given `module`, `exports` and a
 * `require` that knows only the allowed modules. The wrapper stays on the file's first line so that
 * line numbers, and the CLI's inline source map, still point where they did.
 */
export function compileBundle(js: string, filename: string): CompileOutcome {
  const at = (message: string, line = 1, column = 1): CompileOutcome => ({
    ok: false,
    error: { message, file: filename, line, column },
  });
  if (Buffer.byteLength(js) > MAX_BUNDLE_BYTES) return at(`the bundle is larger than ${MAX_BUNDLE_BYTES} bytes`);
  const requires: string[] = [];
  try {
    for (const found of new Bun.Transpiler({ loader: "js" }).scanImports(js)) {
      if (found.kind === "dynamic-import") return at(`import("${found.path}") is not allowed in scripts`);
      if (found.kind !== "require-call" && found.kind !== "import-statement") continue;
      if (!ALLOWED_IMPORTS.includes(found.path)) {
        const allowed = ALLOWED_IMPORTS.map((p) => `"${p}"`).join(", ");
        return at(`require("${found.path}") is not available in scripts: scripts may use only ${allowed}`);
      }
      requires.push(found.path);
    }
  } catch (err) {
    return at(`the bundle does not parse: ${(err as Error).message}`);
  }
  const mapMatch = INLINE_MAP.exec(js);
  const body = mapMatch ? js.slice(0, mapMatch.index) : js;
  const sourceMap = mapMatch ? Buffer.from(mapMatch[1] as string, "base64").toString("utf8") : emptyMap(filename);
  const imports = [...new Set(requires)].map((p, i) => `import * as __junction_m${i} from ${JSON.stringify(p)};`);
  const known = [...new Set(requires)].map((p, i) => `${JSON.stringify(p)}: __junction_m${i}`).join(", ");
  const prefix = `${imports.join(" ")} const __junction_required = { ${known} }; const module = { exports: {} }; (function (exports, require, module) {`;
  const require = `(name) => { if (name in __junction_required) return __junction_required[name]; throw new Error("require(" + JSON.stringify(name) + ") is not available in scripts"); }`;
  const suffix = `\n})(module.exports, ${require}, module);\nexport default (module.exports && module.exports.__esModule ? module.exports.default : module.exports);\n`;
  const code = `${prefix}${body}${suffix}`;
  const parses = syntaxProblem(code);
  if (parses) return at(`the bundle does not parse: ${parses}`);
  const sourceHash = new Bun.CryptoHasher("sha256").update(js).digest("hex");
  return { ok: true, compiled: { filename, code, sourceMap, sourceHash } };
}

function syntaxProblem(code: string): string | null {
  try {
    new Bun.Transpiler({ loader: "js" }).transformSync(code);
    return null;
  } catch (err) {
    const first = err instanceof AggregateError ? err.errors[0] : err;
    return String((first as { message?: unknown })?.message ?? first);
  }
}

/** A source map that maps nothing: stack frames then name the bundle's own lines. */
function emptyMap(filename: string): string {
  return JSON.stringify({ version: 3, sources: [filename], names: [], mappings: "" });
}
