/** A position in a file: 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** [generated column, original line, original column], all 0-based, sorted by generated column. */
type Segment = [number, number, number];

/**
 * The lookup half of a version 3 source map, enough to turn a stack frame of the compiled script
 * back into the line the customer wrote. Only the first source is used: a script is one file.
 */
export class SourceMapIndex {
  private constructor(private readonly lines: Segment[][]) {}

  static parse(json: string): SourceMapIndex {
    const map = JSON.parse(json) as { version?: number; mappings?: unknown };
    if (map.version !== 3 || typeof map.mappings !== "string") throw new Error("not a version 3 source map");
    return new SourceMapIndex(decodeMappings(map.mappings));
  }

  /** The original position of a generated one (1-based in and out), or null where nothing maps. */
  original(generated: Position): Position | null {
    const segments = this.lines[generated.line - 1];
    if (!segments || segments.length === 0) return null;
    const col = generated.column - 1;
    let found: Segment | undefined = segments[0];
    for (const segment of segments) {
      if (segment[0] > col) break;
      found = segment;
    }
    return found ? { line: found[1] + 1, column: found[2] + 1 } : null;
  }
}

function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const lineText of mappings.split(";")) {
    const segments: Segment[] = [];
    let generatedColumn = 0;
    for (const text of lineText.split(",")) {
      if (text === "") continue;
      const fields = decodeVlq(text);
      generatedColumn += fields[0] ?? 0;
      if (fields.length >= 4) {
        sourceLine += fields[2] ?? 0;
        sourceColumn += fields[3] ?? 0;
        segments.push([generatedColumn, sourceLine, sourceColumn]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

function decodeVlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`invalid source map character "${char}"`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  return out;
}
