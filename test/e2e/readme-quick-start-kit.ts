import { createServer } from "node:net";

/** One command of a quick-start block and what the README says it answers. */
export interface QuickStartCommand {
  /** As written, continuation lines joined by their newline. */
  command: string;
  /** The `# →` line's text split at `…`: each piece must appear in the output, in order. */
  expected: string[];
  /** `# → (within seconds) …`: repeated until it answers so (the upstream's notification is asynchronous). */
  eventually: boolean;
}

/** The fenced blocks after `<!-- quick-start: NAME -->`, by name, in order (a name may mark several blocks). */
export function quickStartBlocks(markdown: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const m of markdown.matchAll(/<!-- quick-start: ([a-z-]+) -->\n```sh\n([\s\S]*?)\n```/g)) {
    const name = m[1] as string;
    blocks.set(name, [...(blocks.get(name) ?? []), m[2] as string]);
  }
  return blocks;
}

/** A block's commands: `\`-continued lines and lines inside a single-quoted argument joined, comment lines dropped, `# →` lines attached to the command above. */
export function commandsOf(block: string): QuickStartCommand[] {
  const commands: QuickStartCommand[] = [];
  let pending = "";
  for (const line of block.split("\n")) {
    const expectation = /^# → (\(within seconds\) )?(.*)$/.exec(line);
    if (expectation) {
      const last = commands.at(-1);
      if (!last || last.expected.length > 0) throw new Error(`an expectation follows no command: ${line}`);
      last.expected = (expectation[2] as string)
        .split("…")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      last.eventually = expectation[1] !== undefined;
      continue;
    }
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    pending += pending === "" ? line : `\n${line}`;
    // A single-quoted argument may span lines (a JSON body written over several).
    if (!line.endsWith("\\") && (pending.match(/'/g)?.length ?? 0) % 2 === 0) {
      commands.push({ command: pending, expected: [], eventually: false });
      pending = "";
    }
  }
  if (pending !== "") throw new Error(`a command ends with a continuation: ${pending}`);
  return commands;
}

/** Whether `output` holds every expected piece, in order. */
export function answersAsWritten(output: string, expected: readonly string[]): boolean {
  let from = 0;
  for (const piece of expected) {
    const at = output.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

const SEPARATOR = "\u001e";

/** Single-quoted for bash. */
const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Bash's `answersAsWritten`: whether $1 holds each further argument, in order, as plain text (each piece cut off
 * with what comes before it). Order matters: a list of two messages, one pending and one succeeded, holds
 * `"status":"succeeded"` and `exists` apart, but not one message that is both.
 */
const IN_ORDER = `_in_order() { local rest="$1" piece; shift; for piece in "$@"; do case "$rest" in *"$piece"*) rest="\${rest#*"$piece"}" ;; *) return 1 ;; esac; done; }`;

/**
 * One bash script running the commands in order in one shell (their variables carry over), each command's
 * output followed by a separator; an `eventually` command is repeated every 100 ms, for at most `retryMs`,
 * until its output holds every expected piece in order (as `answersAsWritten` then checks it).
 */
export function scriptOf(commands: readonly QuickStartCommand[], retryMs = 15_000): string {
  const lines = ["#!/usr/bin/env bash", IN_ORDER];
  for (const c of commands) {
    if (c.eventually) {
      const check = `_in_order "$_out" ${c.expected.map(quoted).join(" ")}`;
      lines.push(
        `for _try in $(seq 1 ${Math.ceil(retryMs / 100)}); do _out=$(${c.command}
); if ${check}; then break; fi; sleep 0.1; done; printf '%s' "$_out"`,
      );
    } else {
      lines.push(c.command);
    }
    lines.push(`printf '\\n${SEPARATOR}\\n'`);
  }
  return `${lines.join("\n")}\n`;
}

/** The script's output cut per command. */
export function outputsOf(stdout: string): string[] {
  return stdout.split(`\n${SEPARATOR}\n`).slice(0, -1);
}

/** The `NAME=value` assignments in front of a command, and the command. */
export function envAssignments(line: string): { env: Record<string, string>; command: string } {
  const env: Record<string, string> = {};
  let rest = line.trim();
  for (let m = /^([A-Z_][A-Z0-9_]*)=(\S*)\s+/.exec(rest); m; m = /^([A-Z_][A-Z0-9_]*)=(\S*)\s+/.exec(rest)) {
    env[m[1] as string] = m[2] as string;
    rest = rest.slice(m[0].length);
  }
  return { env, command: rest };
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Whether a socket listens on `port` of 127.0.0.1 only (Linux's /proc/net/tcp{,6}: state 0A is LISTEN). */
export async function listenersOn(port: number): Promise<string[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await Bun.file(table).text();
    for (const row of text.split("\n").slice(1)) {
      const [, local, , state] = row.trim().split(/\s+/);
      if (state === "0A" && local?.endsWith(`:${hexPort}`)) found.push(local.slice(0, -5));
    }
  }
  return found;
}

/** The commands run in one bash (`scriptOf`) with only `env` (and PATH, HOME); each answer not as written, shown. */
export async function walkCommands(
  commands: readonly QuickStartCommand[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ outputs: number; mismatches: string[]; stderr: string }> {
  const run = Bun.spawn(["bash", "-c", scriptOf(commands)], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  await run.exited;
  const outputs = outputsOf(stdout);
  const mismatches = commands
    .map((c, i) => ({ ...c, output: outputs[i] ?? "" }))
    .filter((c) => !answersAsWritten(c.output, c.expected))
    .map((c) => `${c.command}\n  expected: ${c.expected.join(" … ")}\n  got: ${c.output.slice(0, 800)}`);
  return { outputs: outputs.length, mismatches, stderr };
}
