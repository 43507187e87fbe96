import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Subprocess, spawn } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { documentationFiles } from "../docs/markdown.ts";
import { shellBlocks, walkedBlocks } from "../docs/shell-blocks.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { commandsOf, freePort, walkCommands } from "./readme-quick-start-kit.ts";

// The docs pages' blocks marked `<!-- walk: NAME -->`, run as written against one embedded Junction (free port,
// temporary data dir, 127.0.0.1, the sandbox upstream): each page's blocks in one bash, every answer checked
// against its `# →` line. The pages' `$KEY` and `$JUNCTION_SECRET_KEY` are the key Junction was started with,
// `localhost:3003` a free port on 127.0.0.1; the pages build on the README quick start's `cal` integration.

const ROOT = join(import.meta.dir, "..", "..");
const KEY = "jct_sk_docs_walk_0123456789";
const PAGES: [file: string, walk: string][] = [
  ["docs/rpc.md", "rpc"],
  ["docs/oauth.md", "oauth"],
  ["docs/agents.md", "agents"],
  ["docs/proxy.md", "proxy"],
];

describe("the docs pages, walked as written", () => {
  const data = tempDir("junction-docs-walk-");
  let junction: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let port = 0;
  let output = "";
  const localised = (text: string) => text.replace(/(localhost|127\.0\.0\.1):3003\b/g, `127.0.0.1:${port}`);

  beforeAll(async () => {
    port = await freePort();
    junction = spawn(["bun", join(ROOT, "cli/junction.ts"), "start"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        PORT: String(port),
        JUNCTION_HOST: "127.0.0.1",
        JUNCTION_BASE_URL: `http://127.0.0.1:${port}`,
        JUNCTION_DATA_DIR: data.path,
        JUNCTION_SECRET_KEY: KEY,
        JUNCTION_SANDBOX_UPSTREAM: "true",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    for (const stream of [junction.stdout, junction.stderr]) {
      void new Response(stream).body?.pipeTo(
        new WritableStream({
          write: (chunk) => {
            output += new TextDecoder().decode(chunk);
          },
        }),
      );
    }
    await waitFor("Junction to listen", () => output.includes("Junction is listening on"), 30_000).catch((err) => {
      throw new Error(`${(err as Error).message}\n${output}`);
    });
    const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
    const base = `http://127.0.0.1:${port}`;
    const cal = await fetch(`${base}/integrations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ unique_key: "cal", provider: "google-calendar" }),
    });
    expect(cal.status).toBe(200);
    const mode = await fetch(`${base}/integrations/cal/test-mode`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ enabled: true }),
    });
    expect(mode.status).toBe(200);
  }, 45_000);

  afterAll(async () => {
    junction?.kill("SIGTERM");
    await junction?.exited;
    data.remove();
  });

  for (const [file, name] of PAGES) {
    test(`${file}: every command answers what the page says it answers`, async () => {
      const blocks = walkedBlocks(readFileSync(join(ROOT, file), "utf8"), name);
      expect(blocks.length).toBeGreaterThan(0);
      const commands = commandsOf(localised(blocks.join("\n")));
      const unchecked = commands.filter((c) => /^curl\b/.test(c.command) && c.expected.length === 0);
      expect(unchecked.map((c) => c.command)).toEqual([]);
      const { outputs, mismatches, stderr } = await walkCommands(commands, data.path, {
        KEY,
        JUNCTION_SECRET_KEY: KEY,
      });
      expect(outputs, stderr).toBe(commands.length);
      expect(mismatches, `stderr:\n${stderr}\nJunction:\n${output.slice(-2000)}`).toEqual([]);
    }, 20_000);
  }
});

test("every block marked to be walked is on a page this walk runs", () => {
  const walked = documentationFiles().flatMap((file) =>
    shellBlocks(readFileSync(join(ROOT, file), "utf8")).flatMap((b) =>
      b.marker.kind === "walk" ? [`${file} ${b.marker.name}`] : [],
    ),
  );
  const run = new Set(PAGES.map(([file, name]) => `${file} ${name}`));
  expect(walked.filter((w) => !run.has(w))).toEqual([]);
});
