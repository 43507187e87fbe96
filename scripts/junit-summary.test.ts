import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../test/support/temp-dir.ts";

const dir = tempDir("junit-summary-");
afterAll(() => dir.remove());

const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="4" assertions="2" failures="2" skipped="1" time="0.5">
  <testsuite name="a.test.ts" file="a.test.ts" tests="2" failures="1">
    <testcase name="x" classname="" time="0.1" file="a.test.ts" line="2" assertions="1" />
    <testcase name="(unnamed)" classname="" time="1.127" file="a.test.ts" assertions="0">
      <failure type="Error" message="boom">Error: gateway did not start (exit 1):&#10;listen EADDRINUSE &amp; more&#10;      at a.test.ts:3:56&#10;</failure>
    </testcase>
  </testsuite>
  <testsuite name="b.test.ts" file="b.test.ts" tests="2" failures="1">
    <testcase name="y &quot;quoted&quot;" classname="" time="0.1" file="b.test.ts" line="2" assertions="1">
      <failure type="Error" message="no">Error: expected 1</failure>
    </testcase>
    <testcase name="z" classname="" time="0" file="b.test.ts" line="3"><skipped /></testcase>
  </testsuite>
</testsuites>`;

async function summary(xml: string | null) {
  const file = join(dir.path, `${Math.random()}.xml`);
  if (xml !== null) await Bun.write(file, xml);
  const proc = Bun.spawn(["bun", join(import.meta.dir, "junit-summary.ts"), file], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  expect(await proc.exited).toBe(0);
  return { stdout, stderr };
}

test("prints the counts on stdout and names each failure, hooks included, on stderr", async () => {
  const { stdout, stderr } = await summary(REPORT);
  expect(stdout).toBe("4 2 0 1\n");
  expect(stderr).toBe(
    [
      "failed tests (2):",
      "- a.test.ts: (unnamed) (a beforeAll/afterAll hook or an error between tests)",
      "    Error: gateway did not start (exit 1):",
      "    listen EADDRINUSE & more",
      "          at a.test.ts:3:56",
      '- b.test.ts: y "quoted"',
      "    Error: expected 1",
      "",
    ].join("\n"),
  );
});

test("a run without failures prints nothing on stderr; a missing report counts as one error", async () => {
  const clean = await summary(
    REPORT.replace(/<failure[\s\S]*?<\/failure>/g, "").replace('failures="2"', 'failures="0"'),
  );
  expect(clean.stdout).toBe("4 0 0 1\n");
  expect(clean.stderr).toBe("");
  expect((await summary(null)).stdout).toBe("0 0 1 0\n");
});
