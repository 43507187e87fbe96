import { describe, expect, test } from "bun:test";
import { compileScript } from "./compile-script.ts";
import { SourceMapIndex } from "./source-map.ts";

describe("compileScript", () => {
  test("strips types and keeps the nango import, with a map back to the source lines", async () => {
    const source = [
      'import { createSync } from "nango";',
      "",
      "type Id = string;",
      "// comment",
      "export default createSync({",
      '  frequency: "1d",',
      "  exec: async (): Promise<Id> => {",
      '    return "marker-line-8";',
      "  },",
      "});",
    ].join("\n");
    const out = await compileScript(source, "sync.ts");
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const { code, sourceMap } = out.compiled;
    expect(code).toContain('from "nango"');
    expect(code).not.toContain("Promise<Id>");
    const generatedLine = code.split("\n").findIndex((l) => l.includes("marker-line-8")) + 1;
    const column = (code.split("\n")[generatedLine - 1] as string).indexOf('"marker') + 1;
    expect(SourceMapIndex.parse(sourceMap).original({ line: generatedLine, column })?.line).toBe(8);
  });

  test("the same source always hashes the same; a different one differently", async () => {
    const a = await compileScript("export default {};", "a.ts");
    const b = await compileScript("export default {};", "b.ts");
    const c = await compileScript("export default { };", "a.ts");
    if (!a.ok || !b.ok || !c.ok) throw new Error("expected all to compile");
    expect(a.compiled.sourceHash).toBe(b.compiled.sourceHash);
    expect(c.compiled.sourceHash).not.toBe(a.compiled.sourceHash);
  });

  test("type-only imports are not imports at run time", async () => {
    const out = await compileScript(
      'import type { Calendar } from "googleapis";\nexport default {} as Calendar;',
      "t.ts",
    );
    expect(out.ok).toBe(true);
  });

  test("JavaScript files are not parsed as TypeScript", async () => {
    const out = await compileScript("const x: number = 1;\nexport default {};", "plain.js");
    expect(out).toMatchObject({ ok: false, error: { file: "plain.js", line: 1 } });
  });

  test("a source larger than 1 MiB is refused", async () => {
    const out = await compileScript(`export default {};\n//${"x".repeat(1024 * 1024)}`, "big.ts");
    expect(out).toMatchObject({ ok: false, error: { message: expect.stringContaining("larger than") } });
  });
});

describe("SourceMapIndex", () => {
  test("decodes VLQ mappings with negative deltas", () => {
    // line 1: gen col 0 -> src 0:0 ; gen col 5 -> src 2:4 ; line 2: gen col 2 -> src 1:0
    const map = JSON.stringify({ version: 3, sources: ["a.ts"], mappings: "AAAA,KAEI;EADJ", names: [] });
    const index = SourceMapIndex.parse(map);
    expect(index.original({ line: 1, column: 1 })).toEqual({ line: 1, column: 1 });
    expect(index.original({ line: 1, column: 9 })).toEqual({ line: 3, column: 5 });
    expect(index.original({ line: 2, column: 3 })).toEqual({ line: 2, column: 1 });
    expect(index.original({ line: 7, column: 1 })).toBeNull();
  });

  test("refuses what is not a version 3 map", () => {
    expect(() => SourceMapIndex.parse('{"version":2}')).toThrow("not a version 3 source map");
  });
});
