import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commandsOf } from "../e2e/readme-quick-start-kit.ts";
import { documentationFiles, ROOT } from "./markdown.ts";
import { shellBlocks, walkedBlocks } from "./shell-blocks.ts";

// Every shell block of the README and the docs is either run as written by a walk
// (test/e2e/docs-walk.test.ts, test/e2e/readme-quick-start.test.ts) or says why it cannot run here.

describe("the docs' shell blocks", () => {
  for (const file of documentationFiles()) {
    const markdown = readFileSync(join(ROOT, file), "utf8");
    test(`${file}: every shell block is walked or says why not`, () => {
      const unmarked = shellBlocks(markdown)
        .filter((b) => b.marker.kind === "none" || (b.marker.kind === "not-walked" && b.marker.reason.length < 12))
        .map((b) => `${file}:${b.line}`);
      expect(unmarked).toEqual([]);
    });
    test(`${file}: every walked block reads as commands, each expectation under a command`, () => {
      for (const block of shellBlocks(markdown).filter((b) => b.marker.kind === "walk")) {
        expect(() => commandsOf(block.body), `${file}:${block.line}`).not.toThrow();
      }
    });
  }
});

describe("reading the blocks", () => {
  const page = [
    "<!-- walk: a -->",
    "```sh",
    "echo 1",
    "```",
    "",
    "1. step:",
    "",
    "   <!-- not-walked: needs Docker running -->",
    "   ```bash",
    "   docker ps",
    "   ```",
    "```json",
    "{}",
    "```",
    "```shell",
    "ls",
    "```",
  ].join("\n");

  test("markers above a block, indented blocks and unmarked blocks are told apart; other languages are skipped", () => {
    expect(shellBlocks(page)).toEqual([
      { line: 2, marker: { kind: "walk", name: "a" }, body: "echo 1" },
      { line: 9, marker: { kind: "not-walked", reason: "needs Docker running" }, body: "docker ps" },
      { line: 15, marker: { kind: "none" }, body: "ls" },
    ]);
    expect(walkedBlocks(page, "a")).toEqual(["echo 1"]);
  });
});
