import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const DOC = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

/** The "Where is…" table's rows: the behaviour and the paths (in backticks) of its second column. */
function indexRows(markdown: string): { behaviour: string; paths: string[] }[] {
  const start = markdown.indexOf("## Where is…");
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Behaviour") && !line.startsWith("| ---"))
    .map((line) => {
      const [behaviour = "", where = ""] = line.slice(2, -2).split(" | ");
      return { behaviour, paths: [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string) };
    });
}

/** Paths named anywhere in the page (backticked, with a folder separator and a known top-level folder). */
function pathsNamedInPage(markdown: string): string[] {
  const TOP = /^(packages|services|gateway|scripts-runtime|cli|test|bench|scripts|proto|docs)\//;
  return [...markdown.matchAll(/`([^`\s]+)`/g)]
    .map((m) => (m[1] as string).replace(/[),.:;]+$/, ""))
    .filter((p) => TOP.test(p) && !p.includes("<") && !p.includes("{") && !p.includes("*"));
}

describe("docs/architecture.md finds a behaviour in one step", () => {
  const rows = indexRows(DOC);

  test("the Where is… index names at least 30 behaviours, each with a path", () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
    for (const row of rows) expect(row.paths.length, row.behaviour).toBeGreaterThan(0);
  });

  test("every path the index names exists", () => {
    const missing = rows.flatMap((row) => row.paths.filter((p) => !existsSync(join(ROOT, p))));
    expect(missing).toEqual([]);
  });

  test("every repository path the page names elsewhere exists too", () => {
    const missing = pathsNamedInPage(DOC).filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  test("the check sees a path that does not exist", () => {
    const planted = "## Where is…\n\n| Behaviour | Where |\n| --- | --- |\n| Nothing | `services/none/src/x.ts` |\n";
    const [row] = indexRows(planted);
    expect(row?.paths).toEqual(["services/none/src/x.ts"]);
    expect(existsSync(join(ROOT, row?.paths[0] ?? ""))).toBe(false);
  });
});
