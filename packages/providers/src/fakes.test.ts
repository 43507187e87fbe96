import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const SRC = import.meta.dir;

describe("the registry of fakes (@junction/providers/fakes)", () => {
  test("lists every provider folder's fake, each once", async () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory() && readdirSync(join(SRC, d.name)).includes("fake"))
      .map((d) => d.name);
    expect(folders.length).toBeGreaterThan(0);
    const { FAKES } = await import("./fakes.ts");
    const listed: unknown[] = [];
    for (const folder of folders) listed.push((await import(join(SRC, folder, "fake/index.ts"))).fake);
    expect(new Set<unknown>(FAKES)).toEqual(new Set(listed));
    expect(FAKES.length as number).toBe(folders.length);
  });

  test("production code loads no fake: importing the providers' entry leaves out fake-kit and every fake folder", () => {
    const script = `await import(${JSON.stringify(join(SRC, "index.ts"))});
      console.log(JSON.stringify(Object.keys(require.cache)));`;
    const run = Bun.spawnSync(["bun", "-e", script], { cwd: SRC, stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const loaded = JSON.parse(run.stdout.toString()) as string[];
    expect(loaded.some((m) => m.endsWith("/providers/src/index.ts"))).toBe(true);
    expect(loaded.filter((m) => m.includes("/fake-kit/") || m.includes("/fake/") || m.endsWith("/fakes.ts"))).toEqual(
      [],
    );
  });
});
