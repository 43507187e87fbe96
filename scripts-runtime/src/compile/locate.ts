import type { Position } from "./source-map.ts";

const START: Position = { line: 1, column: 1 };

/** The 1-based position of character `offset` in `source`. */
export function positionAt(source: string, offset: number): Position {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Where an import of `specifier` is written: `import ... from "x"`, `export ... from "x"`,
 * `import "x"`, `import("x")` or `require("x")`. The transpiler names the import but not its place.
 */
export function locateImport(source: string, specifier: string): Position {
  const quoted = `["'\`]${escapeRegExp(specifier)}["'\`]`;
  const pattern = new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*|\\brequire\\s*\\(\\s*)${quoted}`);
  const match = pattern.exec(source);
  return match ? positionAt(source, match.index) : START;
}

/** Where the field `key` of the declaration is written (`key:`, `"key":`, or shorthand `key,`). */
export function locateKey(source: string, key: string): Position {
  const pattern = new RegExp(`(^|[\\s{,])(["']?)${escapeRegExp(key)}\\2\\s*[:,}(]`, "m");
  const match = pattern.exec(source);
  if (match) return positionAt(source, match.index + (match[1]?.length ?? 0));
  return locateDefaultExport(source);
}

/** Where the default export is written, or the start of the file. */
export function locateDefaultExport(source: string): Position {
  const match = /\bexport\s+default\b/.exec(source);
  return match ? positionAt(source, match.index) : START;
}
