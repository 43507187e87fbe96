import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "bun";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const ROOT = join(import.meta.dir, "..", "..");
let j: TestJunction;
const files = tempDir();

beforeAll(async () => {
  j = await startTestJunction();
  const res = await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
  if (res.status !== 200) throw new Error(res.text);
});
afterAll(async () => {
  await j.close();
  files.remove();
});

/** Runs `bun cli/junction.ts scripts ...` against the test Junction. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = spawn(["bun", join(ROOT, "cli/junction.ts"), "scripts", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", JUNCTION_URL: j.url, JUNCTION_SECRET_KEY: TEST_SECRET_KEY, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

const file = (name: string, source: string) => {
  const path = join(files.path, name);
  writeFileSync(path, source);
  return path;
};

describe("junction scripts (CLI)", () => {
  test("deploys a file, named after it or with --name, and lists the scripts", async () => {
    const renewal = file("watch-renewal.ts", 'export default createSync({ frequency: "1d", exec: async () => {} });\n');
    const first = await cli(["deploy", "cal", renewal]);
    expect(first).toMatchObject({ code: 0, stdout: "deployed cal/watch-renewal version 1 (sync, every 1d)\n" });
    const named = await cli(["deploy", "cal", renewal, "--name", "renewal"]);
    expect(named.stdout).toBe("deployed cal/renewal version 1 (sync, every 1d)\n");
    const again = await cli(["deploy", "cal", renewal]);
    expect(again.stdout).toContain("version 2");
    const list = await cli(["list", "cal"]);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split("\n")).toEqual([
      "cal/renewal\tversion 1\tsync, every 1d",
      "cal/watch-renewal\tversion 2\tsync, every 1d",
    ]);
  }, 30_000);

  test("a bad script exits 1 with the reason at file:line:column", async () => {
    const bad = file(
      "bad.ts",
      'export default createSync({\n  frequency: "sometimes",\n  exec: async () => {},\n});\n',
    );
    const res = await cli(["deploy", "cal", bad]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^junction: bad\.ts:2:\d+: .*sometimes/);
    expect(res.stderr).toMatch(/\n {2}bad\.ts:2:\d+: /);
  }, 30_000);

  test("usage errors exit 2; a missing key is said", async () => {
    expect((await cli(["deploy", "cal"])).code).toBe(2);
    expect((await cli(["nope"])).code).toBe(2);
    const noKey = await cli(["list"], { JUNCTION_SECRET_KEY: "" });
    expect(noKey).toMatchObject({ code: 2 });
    expect(noKey.stderr).toContain("JUNCTION_SECRET_KEY");
    const wrongKey = await cli(["list"], { JUNCTION_SECRET_KEY: "jct_sk_wrong_key_0000000000000000000" });
    expect(wrongKey.code).toBe(1);
  }, 30_000);
});
