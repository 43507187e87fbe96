import { type Position, SourceMapIndex } from "../compile/source-map.ts";

/** One frame of a QuickJS stack: `    at name (file:line:column)`. */
export interface StackFrame {
  name: string | null;
  file: string;
  line: number;
  column: number;
}

const NAMED = /^\s*at (.+?) \((.+):(\d+):(\d+)\)\s*$/;
const BARE = /^\s*at (.+):(\d+):(\d+)\s*$/;

/** Parses the frames of a QuickJS `Error.stack`; lines that are not frames are skipped. */
export function parseStack(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of stack.split("\n")) {
    const named = NAMED.exec(line);
    if (named) {
      frames.push({ name: named[1] as string, file: named[2] as string, line: +named[3]!, column: +named[4]! });
      continue;
    }
    const bare = BARE.exec(line);
    if (bare) frames.push({ name: null, file: bare[1] as string, line: +bare[2]!, column: +bare[3]! });
  }
  return frames;
}

/**
 * The script's own frames of a stack, moved to the lines of the uploaded source. Frames of the
 * prelude, of eval'd code and of natives are dropped: they say nothing to the script's author and
 * would only describe the sandbox.
 */
export function scriptFrames(stack: string, filename: string, sourceMap: string): StackFrame[] {
  let index: SourceMapIndex | null = null;
  try {
    index = SourceMapIndex.parse(sourceMap);
  } catch {
    index = null;
  }
  const frames: StackFrame[] = [];
  for (const frame of parseStack(stack)) {
    if (frame.file !== filename) continue;
    const original: Position | null = index?.original(frame) ?? null;
    frames.push(original ? { ...frame, ...original } : frame);
  }
  return frames;
}

/** Frames shown at most; a stack overflow would otherwise print thousands of the same line. */
const MAX_FRAMES = 20;

export function formatFrames(frames: StackFrame[]): string {
  const shown = frames
    .slice(0, MAX_FRAMES)
    .map((f) => `    at ${f.name ? `${f.name} (${f.file}:${f.line}:${f.column})` : `${f.file}:${f.line}:${f.column}`}`);
  if (frames.length > MAX_FRAMES) shown.push(`    ... ${frames.length - MAX_FRAMES} more frames`);
  return shown.join("\n");
}
