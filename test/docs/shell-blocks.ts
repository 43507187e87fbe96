/** What the comment right above a shell block says about it. */
export type BlockMarker =
  | { kind: "walk" | "quick-start"; name: string }
  | { kind: "not-walked"; reason: string }
  | { kind: "none" };

/** A fenced sh/bash/shell block of a markdown page. */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  marker: BlockMarker;
  /** The block's lines, the fence's indentation removed. */
  body: string;
}

function markerOf(line: string | undefined): BlockMarker {
  const m = /^\s*<!-- (walk|quick-start|not-walked): (.*?) -->\s*$/.exec(line ?? "");
  if (!m) return { kind: "none" };
  const kind = m[1] as "walk" | "quick-start" | "not-walked";
  return kind === "not-walked" ? { kind, reason: m[2] as string } : { kind, name: m[2] as string };
}

/** Every fenced sh/bash/shell block, with the marker on the last non-blank line above its fence. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)/.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    const close = end < 0 ? lines.length : end;
    if (["sh", "bash", "shell"].includes(open[2] as string)) {
      let above = i - 1;
      while (above >= 0 && (lines[above] as string).trim() === "") above--;
      const body = lines.slice(i + 1, close).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
      blocks.push({ line: i + 1, marker: markerOf(lines[above]), body: body.join("\n") });
    }
    i = close;
  }
  return blocks;
}

/** The bodies of a page's blocks marked `<!-- walk: NAME -->`, in order. */
export function walkedBlocks(markdown: string, name: string): string[] {
  return shellBlocks(markdown)
    .filter((b) => b.marker.kind === "walk" && b.marker.name === name)
    .map((b) => b.body);
}
