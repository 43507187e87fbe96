import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const SRC = import.meta.dir;
const manifest = JSON.parse(readFileSync(join(SRC, "..", "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

/** The module specifiers of the package's source files (tests aside), by file. */
function importsOf(): [file: string, specifier: string][] {
  const found: [string, string][] = [];
  for (const file of readdirSync(SRC)) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const text = readFileSync(join(SRC, file), "utf8");
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+"([^"]+)"/gms)) found.push([file, m[1] as string]);
  }
  return found;
}

/** A specifier's package: `@scope/name` or `name`; undefined for a relative or built-in one. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

describe("the proxy engine's place among the layers", () => {
  test("imports only packages of the bottom layer, each listed in its package.json, and nothing outside itself", () => {
    const imports = importsOf();
    expect(imports.length).toBeGreaterThan(10);
    for (const [file, specifier] of imports) {
      const pkg = packageOf(specifier);
      if (pkg === undefined) {
        // Relative imports stay inside the package's own folder.
        if (specifier.startsWith(".")) expect(`${file}: ${specifier}`).toMatch(/: \.\/[^/]+$/);
        continue;
      }
      expect(`${file}: ${pkg}`).not.toMatch(/@junction\/(gateway|scripts-runtime|cli|test|bench|.*-service)$/);
      expect(manifest.dependencies[pkg] ? pkg : `${file}: ${pkg} not in package.json`).toBe(pkg);
    }
  });
});
