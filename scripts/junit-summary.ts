// Prints "tests failures errors skipped" from bun's JUnit report (the root <testsuites> element) on stdout,
// and on stderr each failed test's file, name and first lines of its message: bun's own summary names a
// failed hook only "(unnamed)", without its file, and CI shows the end of the output.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results/junit.xml";
if (!existsSync(file)) {
  console.log("0 0 1 0");
  process.exit(0);
}
const xml = readFileSync(file, "utf8");
const root = /<testsuites\b([^>]*)>/.exec(xml)?.[1] ?? "";
const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? "0");

const xmlText = (text: string) =>
  text
    .replace(/&#10;/g, "\n")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const failed = [...xml.matchAll(/<testcase\b([^>]*)>\s*<(failure|error)\b[^>]*>([\s\S]*?)<\/\2>/g)];
if (failed.length > 0) {
  console.error(`failed tests (${failed.length}):`);
  for (const [, attrs = "", , body = ""] of failed) {
    const field = (name: string) => xmlText(new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? "");
    const hook = field("name") === "(unnamed)" ? " (a beforeAll/afterAll hook or an error between tests)" : "";
    console.error(`- ${field("file")}: ${field("name")}${hook}`);
    for (const line of xmlText(body).trim().split("\n").slice(0, 12)) console.error(`    ${line}`);
  }
}
console.log(`${attr("tests")} ${attr("failures")} ${attr("errors")} ${attr("skipped")}`);
