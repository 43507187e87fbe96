import { dirname } from "node:path";

/**
 * The `zod` module scripts import: the version Nango's CLI pins for its projects (the
 * `sandbox-zod` alias in package.json), so that a schema means in the sandbox what it meant where
 * the script was written. Bundled once per process into one ES module; a run that imports it
 * evaluates it in its own QuickJS context (nothing is shared between runs).
 */
let bundled: Promise<string> | null = null;

/** The module's source, built on first use and kept for the life of the process. */
export function sandboxZodSource(): Promise<string> {
  if (!bundled) {
    bundled = buildZod();
    bundled.catch(() => {
      bundled = null;
    });
  }
  return bundled;
}

/** Whether a compiled script imports zod (ES module output keeps the specifier as written). */
export function importsZod(code: string): boolean {
  return /\bfrom\s*["']zod["']|\bimport\s*["']zod["']/.test(code);
}

async function buildZod(): Promise<string> {
  const real = Bun.resolveSync("sandbox-zod", import.meta.dir);
  const entry = `${dirname(real)}/__junction_sandbox_entry.js`;
  // The entry also hands the namespace to the prelude, which turns a declaration's zod models into
  // JSON Schemas when the script's declaration is read.
  const source = [
    `import * as z from ${JSON.stringify(real)};`,
    `export * from ${JSON.stringify(real)};`,
    "export default z.z;",
    'Object.defineProperty(globalThis, "__junctionZod", { value: z.z, configurable: true });',
  ].join("\n");
  const built = await Bun.build({
    entrypoints: [entry],
    files: { [entry]: source },
    format: "esm",
    target: "browser",
    minify: true,
  });
  const output = built.outputs.find((o) => o.kind === "entry-point");
  if (!built.success || !output) throw new Error(`zod could not be bundled: ${built.logs.map(String).join("; ")}`);
  return output.text();
}
