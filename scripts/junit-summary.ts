// Prints "tests failures errors skipped" from bun's JUnit report (the root <testsuites> element).
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results/junit.xml";
if (!existsSync(file)) {
  console.log("0 0 1 0");
  process.exit(0);
}
const xml = readFileSync(file, "utf8");
const root = /<testsuites\b([^>]*)>/.exec(xml)?.[1] ?? "";
const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? "0");
console.log(`${attr("tests")} ${attr("failures")} ${attr("errors")} ${attr("skipped")}`);
