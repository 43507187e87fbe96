import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { tempDir } from "../../support/temp-dir.ts";

/** The `nango` CLI this test workspace pins (a dev dependency) and the zod it compiles against. */
const require = createRequire(import.meta.url);
const CLI_DIR = dirname(realpathSync(require.resolve("nango/package.json")));
export const NANGO_CLI = join(CLI_DIR, "dist", "index.js");
/** The CLI's own zod (4.3.6): a project's models must be of the version its types were built with. */
const CLI_ZOD = realpathSync(join(CLI_DIR, "..", "zod"));

/** The tsconfig `nango init` writes (the CLI type-checks with its own options; this one is for editors). */
const TSCONFIG = {
  include: ["index.ts", "**/*.ts"],
  exclude: ["node_modules", "dist", "build", ".nango"],
  compilerOptions: { module: "node16", target: "esnext", strict: true, moduleResolution: "node16", noEmit: true },
};

/**
 * A `nango-integrations/` folder as `nango init` lays it out (index.ts importing each script,
 * `.nango/`, package.json pinning nango and zod), with node_modules linked to the pinned packages
 * so that the CLI type-checks and builds offline.
 */
export function nangoProject(files: Record<string, string>): { path: string; remove: () => void } {
  const dir = tempDir("nango-integrations-");
  mkdirSync(join(dir.path, ".nango"));
  mkdirSync(join(dir.path, "node_modules"));
  symlinkSync(CLI_DIR, join(dir.path, "node_modules", "nango"));
  symlinkSync(CLI_ZOD, join(dir.path, "node_modules", "zod"));
  const version = (require("nango/package.json") as { version: string }).version;
  const pkg = {
    name: "nango-integrations",
    private: true,
    type: "module",
    devDependencies: { nango: version, zod: "4.3.6" },
  };
  writeFileSync(join(dir.path, "package.json"), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir.path, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  writeProjectFiles(dir.path, files);
  return dir;
}

/** Writes (or rewrites) files of the project, index.ts included. */
export function writeProjectFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/**
 * Runs `nango <args>` in `cwd` against Junction: loopback only (CI set, so no version check on the
 * npm registry; telemetry goes to NANGO_HOSTPORT), a home of its own. Killed past `timeoutMs`.
 */
export async function runNangoCli(
  cwd: string,
  args: string[],
  env: { hostport: string; secretKey: string },
  timeoutMs = 240_000,
): Promise<{ code: number | null; output: string }> {
  const proc = Bun.spawn(["node", NANGO_CLI, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(cwd, ".home"),
      NANGO_HOSTPORT: env.hostport,
      NANGO_SECRET_KEY_DEV: env.secretKey,
      NANGO_SECRET_KEY_PROD: env.secretKey,
      NANGO_CLI_UPGRADE_MODE: "ignore",
      CI: "true",
      NO_COLOR: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill(9), timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, output: `${stdout}${stderr}` };
}
