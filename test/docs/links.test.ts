import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { anchorsOf, documentationFiles, headingAnchor, linkTargets, readDoc, ROOT } from "./markdown.ts";

// The README became a front door into docs/; every relative link there and in docs/*.md
// must reach a file, and an #anchor into markdown an existing heading.

/** The broken relative links of one markdown file, as "file: target (why)". */
function brokenLinks(file: string, markdown: string, exists: (path: string) => boolean, read: (p: string) => string) {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const path = pathPart === "" ? file : relative(ROOT, join(ROOT, dirname(file), decodeURIComponent(pathPart)));
    if (path.startsWith("..") || !exists(path)) {
      broken.push(`${file}: ${target} (no file ${path})`);
      continue;
    }
    if (anchor !== undefined && path.endsWith(".md") && !anchorsOf(read(path)).has(anchor)) {
      broken.push(`${file}: ${target} (no heading #${anchor} in ${path})`);
    }
  }
  return broken;
}

const onDisk = (path: string) => existsSync(join(ROOT, path));

describe("links in README.md and docs/*.md", () => {
  test("every relative link reaches a file, and every #anchor into markdown a heading", () => {
    const files = documentationFiles();
    expect(files.length).toBeGreaterThan(10);
    const broken = files.flatMap((file) => brokenLinks(file, readDoc(file), onDisk, readDoc));
    expect(broken).toEqual([]);
  });

  test("the check sees a missing file, a missing heading and a link out of the repository", () => {
    const pages: Record<string, string> = {
      "docs/a.md": "# A\n\n## Gmail push (Pub/Sub)\n\n## Gmail push (Pub/Sub)\n",
    };
    const exists = (p: string) => p in pages;
    const read = (p: string) => pages[p] ?? "";
    const text = [
      "[ok](a.md#gmail-push-pubsub) [twice](a.md#gmail-push-pubsub-1) [self](#a)",
      "[gone](b.md) [no heading](a.md#nope) [outside](../../etc/passwd) ![img](shot.png)",
      "`[in code](nowhere.md)` [web](https://example.com)",
      "```\n[fenced](nowhere.md)\n```",
    ].join("\n");
    expect(brokenLinks("docs/a.md", text, exists, read)).toEqual([
      "docs/a.md: b.md (no file docs/b.md)",
      "docs/a.md: a.md#nope (no heading #nope in docs/a.md)",
      "docs/a.md: ../../etc/passwd (no file ../etc/passwd)",
      "docs/a.md: shot.png (no file docs/shot.png)",
    ]);
  });

  test("anchors are GitHub's", () => {
    expect(headingAnchor("Connecting users (OAuth)")).toBe("connecting-users-oauth");
    expect(headingAnchor("`emailAddressHash`")).toBe("emailaddresshash");
    expect(headingAnchor("Where Junction differs from Nango, on purpose")).toBe(
      "where-junction-differs-from-nango-on-purpose",
    );
  });
});
