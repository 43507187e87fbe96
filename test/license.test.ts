import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** The package.json of the root and of every workspace the root names (its globs expanded). */
function workspacePackageFiles(): string[] {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
  const files = ["package.json"];
  for (const pattern of root.workspaces) {
    files.push(...new Bun.Glob(`${pattern}/package.json`).scanSync({ cwd: ROOT, onlyFiles: true }));
  }
  return files.sort();
}

describe("the license", () => {
  test("is the Apache License 2.0 text at the root", () => {
    const text = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(text.trimStart().startsWith("Apache License")).toBe(true);
    expect(text).toContain("Version 2.0, January 2004");
    expect(text).toContain("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    expect(text).toContain("END OF TERMS AND CONDITIONS");
  });

  test("is declared as Apache-2.0 in the package.json of the root and of every workspace", () => {
    const files = workspacePackageFiles();
    // The workspaces listed in the root expand to the packages, services, gateway, cli, tests and benchmarks.
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      expect(existsSync(join(ROOT, file))).toBe(true);
      const pkg = JSON.parse(readFileSync(join(ROOT, file), "utf8")) as { license?: string };
      expect({ file, license: pkg.license }).toEqual({ file, license: "Apache-2.0" });
    }
  });
});
