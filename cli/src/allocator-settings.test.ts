import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALLOCATOR_SETTINGS, withAllocatorSettings } from "./allocator-settings.ts";

const CLI = join(import.meta.dir, "..", "junction.ts");

/** mimalloc's option values as it printed them (MIMALLOC_VERBOSE=1), the last print of each winning. */
function mimallocOptions(stderr: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const m of stderr.matchAll(/option '([a-z_]+)': (-?\d+)/g)) options.set(m[1] as string, m[2] as string);
  return options;
}

describe("withAllocatorSettings", () => {
  test("adds the settings the environment lacks and keeps the rest", () => {
    expect(withAllocatorSettings({ HOME: "/h", UNSET: undefined })).toEqual({ HOME: "/h", ...ALLOCATOR_SETTINGS });
  });

  test("keeps an operator's value, and asks for no exec once every setting is there", () => {
    expect(withAllocatorSettings({ MIMALLOC_PURGE_HOLES: "1" })).toEqual({
      MIMALLOC_PURGE_HOLES: "1",
      MIMALLOC_PURGE_DELAY: "1000",
    });
    expect(withAllocatorSettings({ MIMALLOC_PURGE_HOLES: "1", MIMALLOC_PURGE_DELAY: "100" })).toBeUndefined();
  });
});

describe.if(process.platform === "linux")("execWithAllocatorSettings", () => {
  test("replaces the process with the same one (pid, arguments) under the settings", () => {
    const dir = mkdtempSync(join(tmpdir(), "junction-alloc-"));
    try {
      const script = join(dir, "probe.ts");
      writeFileSync(
        script,
        `import { execWithAllocatorSettings } from ${JSON.stringify(join(import.meta.dir, "allocator-settings.ts"))};
        execWithAllocatorSettings(process.env);
        console.log(JSON.stringify({ pid: process.pid, args: process.argv.slice(2), holes: process.env.MIMALLOC_PURGE_HOLES, delay: process.env.MIMALLOC_PURGE_DELAY }));`,
      );
      const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
      const proc = Bun.spawnSync(["bun", script, "a b", "c"], { env, stderr: "pipe" });
      expect(proc.stderr.toString()).toBe("");
      expect(JSON.parse(proc.stdout.toString())).toEqual({
        pid: proc.pid,
        args: ["a b", "c"],
        holes: "0",
        delay: "1000",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("`junction serve` runs under them: Bun's allocator reads them (its own report of its options)", () => {
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", MIMALLOC_VERBOSE: "1" };
    // An unknown service: the command stops at its usage, after the exec.
    const run = Bun.spawnSync(["bun", CLI, "serve", "nothing"], { env, stderr: "pipe" });
    expect(run.exitCode).toBe(2);
    const options = mimallocOptions(run.stderr.toString());
    expect(options.get("purge_holes")).toBe("0");
    expect(options.get("purge_delay")).toBe("1000");
  });

  test("a command that does not run long is not re-executed", () => {
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", MIMALLOC_VERBOSE: "1" };
    const run = Bun.spawnSync(["bun", CLI, "--help"], { env, stderr: "pipe", stdout: "pipe" });
    expect(mimallocOptions(run.stderr.toString()).get("purge_holes")).toBe("1");
  });
});
