import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Subprocess, spawn } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  answersAsWritten,
  commandsOf,
  envAssignments,
  freePort,
  listenersOn,
  outputsOf,
  quickStartBlocks,
  scriptOf,
  walkCommands,
} from "./readme-quick-start-kit.ts";

// The README's five-minute quick start, run as written. `npm start` with the block's own
// settings (`bun cli/junction.ts start`, what scripts/start.sh runs once the tools are there) on a free port
// with a temporary data dir; the receiver block as written; then every command of the walk in one bash,
// each answer checked against its `# →` line. The ports the README names (3003, 8080) become free ones,
// and `localhost` 127.0.0.1, so that nothing leaves the loopback address.

const ROOT = join(import.meta.dir, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** Output of a process, gathered as it comes. */
function collect(proc: Subprocess<"ignore", "pipe", "pipe">): () => string {
  let text = "";
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder();
      const reader = stream.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    })();
  }
  return () => text;
}

describe("the README's quick start", () => {
  const blocks = quickStartBlocks(README);
  const data = tempDir("junction-quick-start-");
  const procs: Subprocess[] = [];
  let port = 0;
  let receiverPort = 0;
  let junctionOutput: () => string = () => "";
  let receiverOutput: () => string = () => "";
  /** The README's text with the ports it names moved to free ones on 127.0.0.1. */
  const localised = (text: string) =>
    text.replaceAll("localhost:3003", `127.0.0.1:${port}`).replaceAll("localhost:8080", `127.0.0.1:${receiverPort}`);

  beforeAll(async () => {
    port = await freePort();
    receiverPort = await freePort();
    const [startLine] = blocks.get("junction") ?? [];
    const { env, command } = envAssignments(startLine ?? "");
    expect(command).toBe("npm start");
    expect(readFileSync(join(ROOT, "scripts/start.sh"), "utf8")).toContain('exec bun cli/junction.ts start "$@"');
    const junction = spawn(["bun", join(ROOT, "cli/junction.ts"), "start"], {
      cwd: ROOT,
      // No JUNCTION_HOST: the default is under test too.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...env,
        PORT: String(port),
        JUNCTION_BASE_URL: `http://127.0.0.1:${port}`,
        JUNCTION_DATA_DIR: data.path,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    procs.push(junction);
    junctionOutput = collect(junction);
    const [receiverBlock] = blocks.get("receiver") ?? [];
    const receiver = spawn(
      ["bash", "-c", `exec ${localised(receiverBlock ?? "false").replace(/\b8080\b/, String(receiverPort))}`],
      {
        cwd: data.path,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    procs.push(receiver);
    receiverOutput = collect(receiver);
    await waitFor(
      "Junction to listen",
      () => junction.exitCode === null && junctionOutput().includes("Junction is listening on"),
      30_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${junctionOutput()}`);
    });
    await waitFor("the receiver to listen", async () => (await listenersOn(receiverPort)).length > 0, 10_000);
  }, 45_000);

  afterAll(async () => {
    for (const proc of procs) {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    data.remove();
  });

  test("npm start listens on 127.0.0.1 only when JUNCTION_HOST is not set", async () => {
    expect(await listenersOn(port)).toEqual(["0100007F"]);
  });

  test("every command answers what the README says it answers, and the receiver gets the webhooks", async () => {
    const walk = (blocks.get("walk") ?? []).join("\n");
    const key = /^\s*(jct_sk_\S+)\s*$/m.exec(junctionOutput())?.[1];
    expect(key).toBeDefined();
    expect(walk).toMatch(/^KEY=jct_sk_\.\.\. /m);
    const commands = commandsOf(localised(walk).replace(/^KEY=jct_sk_\.\.\. /m, `KEY=${key} `));
    expect(commands.filter((c) => c.expected.length > 0).length).toBeGreaterThanOrEqual(8);
    const { outputs, mismatches, stderr } = await walkCommands(commands, data.path);
    expect(outputs).toBe(commands.length);
    expect(mismatches, `stderr:\n${stderr}\nJunction:\n${junctionOutput().slice(-3000)}`).toEqual([]);

    // What the prose after the walk says the receiver prints: the auth webhook, then the forwarded change.
    await waitFor("the receiver to print the forwarded change", () =>
      /\{"connectionId":"[^"]+","from":"google-calendar","payload":\{[^\n]*"x-goog-resource-state":"exists"[^\n]*\},"providerConfigKey":"cal","type":"forward"\}/.test(
        receiverOutput(),
      ),
    );
    expect(receiverOutput()).toContain('"type":"auth","operation":"creation","success":true');
  }, 40_000);
});

describe("reading the quick start", () => {
  test("commands, continuations and expectations are read as the README writes them", () => {
    const commands = commandsOf(
      [
        "# a comment",
        "A=1; B=(-H x)",
        "curl -s $J/a \\",
        "  -d '{}'",
        '# → {"data":… "ok":true…}',
        "curl -s $J/log",
        "# → (within seconds) succeeded",
      ].join("\n"),
    );
    expect(commands).toEqual([
      { command: "A=1; B=(-H x)", expected: [], eventually: false },
      { command: "curl -s $J/a \\\n  -d '{}'", expected: ['{"data":', '"ok":true', "}"], eventually: false },
      { command: "curl -s $J/log", expected: ["succeeded"], eventually: true },
    ]);
  });

  test("a single-quoted argument written over several lines is one command", () => {
    const commands = commandsOf(['curl -d \'{"a":1,', '  "b":2}\'', "# → ok", "echo it's", "'"].join("\n"));
    expect(commands.map((c) => c.command)).toEqual([`curl -d '{"a":1,\n  "b":2}'`, "echo it's\n'"]);
    expect(commands[0]?.expected).toEqual(["ok"]);
  });

  test("an answer missing a piece, or with pieces out of order, is not what the README says", () => {
    expect(answersAsWritten('{"data":{"ok":true}}', ['{"data":', '"ok":true'])).toBe(true);
    expect(answersAsWritten('{"data":{"ok":false}}', ['{"data":', '"ok":true'])).toBe(false);
    expect(answersAsWritten('"ok":true {"data":', ['{"data":', '"ok":true'])).toBe(false);
  });

  test("the script runs the commands in one shell and cuts their outputs apart", async () => {
    const commands = commandsOf(["X=7", "echo $X", "# → 7", "printf 'a\\nb'", "# → (within seconds) b"].join("\n"));
    const run = spawn(["bash", "-c", scriptOf(commands, 1000)], { stdout: "pipe" });
    expect(outputsOf(await new Response(run.stdout).text())).toEqual(["", "7\n", "a\nb"]);
  });

  test("a command to repeat is repeated until its pieces come in order, as the answer is then checked", async () => {
    // The first answers hold both pieces, out of order (two messages: one pending, one succeeded); the third in order.
    const scratch = tempDir("quick-start-kit-");
    const dir = scratch.path;
    try {
      const commands = commandsOf(
        [
          `N=$(( $(cat ${dir}/n 2>/dev/null || echo 0) + 1 )); echo $N > ${dir}/n; if [ $N -ge 3 ]; then echo 'exists succeeded'; else echo 'succeeded exists'; fi`,
          "# → (within seconds) exists … succeeded",
        ].join("\n"),
      );
      const run = spawn(["bash", "-c", scriptOf(commands, 2000)], { stdout: "pipe" });
      expect(outputsOf(await new Response(run.stdout).text())).toEqual(["exists succeeded"]);
      expect(readFileSync(join(dir, "n"), "utf8").trim()).toBe("3");
    } finally {
      scratch.remove();
    }
  });

  test("settings in front of npm start are read apart from the command", () => {
    expect(envAssignments("A=true B_C=1 npm start")).toEqual({ env: { A: "true", B_C: "1" }, command: "npm start" });
  });
});
