/** Exit codes of the API commands (docs/cli.md). */
export const EXIT = {
  ok: 0,
  /** Junction refused the request (a 4xx answer), or some items of a bulk operation failed. */
  refused: 1,
  /** Bad arguments or missing configuration: nothing was sent. */
  usage: 2,
  /** Junction could not be reached, or answered with a server error (5xx). */
  unavailable: 3,
} as const;

/** Where a command writes: the terminal, or a test's buffer. */
export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

export const terminal: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A wrong invocation: its message is printed with the command's usage, exit 2. */
export class UsageError extends Error {}

export interface ParsedArgs {
  positional: string[];
  /** Flags with a value (`--name value`, `--name=value`), the repeated ones in order. */
  values: Map<string, string[]>;
  booleans: Set<string>;
}

/**
 * Splits arguments into positionals and flags. `valueFlags` take a value, `booleanFlags` none; any other
 * `--flag` is a usage error naming it.
 */
export function parseArgs(args: string[], valueFlags: string[] = [], booleanFlags: string[] = []): ParsedArgs {
  const parsed: ParsedArgs = { positional: [], values: new Map(), booleans: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("--") || arg === "--") {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (booleanFlags.includes(name) && eq < 0) {
      parsed.booleans.add(name);
    } else if (valueFlags.includes(name)) {
      const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      parsed.values.set(name, [...(parsed.values.get(name) ?? []), value]);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return parsed;
}

/** The flag's last value, or undefined. */
export const flag = (args: ParsedArgs, name: string): string | undefined => args.values.get(name)?.at(-1);

/** The flag's value; a usage error naming it when absent. */
export function requiredFlag(args: ParsedArgs, name: string): string {
  const value = flag(args, name);
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

/** Exactly `names.length` positionals (the last `optional` of them may be left out). */
export function positionals(args: ParsedArgs, names: string[], optional = 0): string[] {
  const n = args.positional.length;
  if (n > names.length || n < names.length - optional) {
    throw new UsageError(
      `expected ${names.map((x, i) => (i >= names.length - optional ? `[${x}]` : `<${x}>`)).join(" ")}`,
    );
  }
  return args.positional;
}

/** A query string from the defined entries. */
export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}

type Cell = string | number | null | undefined;

/** Rows as aligned columns, one line each; `empty` when there are none. */
export function printTable(io: CommandIo, rows: Cell[][], empty: string): void {
  if (rows.length === 0) {
    io.out(empty);
    return;
  }
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || c === "" ? "-" : String(c))));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0))) ?? [];
  for (const r of cells)
    io.out(
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    );
}

/** A JSON value, indented, as `--json` and the `show` commands print it. */
export const printJson = (io: CommandIo, value: unknown): void => io.out(JSON.stringify(value, null, 2));

/** A value given on the command line as JSON, or `@file` holding it. */
export async function jsonArgument(text: string, what: string): Promise<unknown> {
  let source = text;
  if (text.startsWith("@")) {
    const file = Bun.file(text.slice(1));
    if (!(await file.exists())) throw new UsageError(`${what}: no file at ${text.slice(1)}`);
    source = await file.text();
  }
  try {
    return JSON.parse(source);
  } catch (err) {
    throw new UsageError(`${what} is not JSON: ${(err as Error).message}`);
  }
}

/** A list answer: its items as JSON with `--json`, else one aligned line per item. */
export function printList<T>(ctx: CommandContext, items: T[], row: (item: T) => Cell[], empty: string): void {
  if (ctx.json) printJson(ctx.io, items);
  else printTable(ctx.io, items.map(row), empty);
}

/** What a command runs with: the API, where to write, and whether `--json` was given. */
export interface CommandContext {
  api: import("./api-client.ts").ApiClient;
  io: CommandIo;
  json: boolean;
}

/** One `junction <name> ...` command. */
export interface Command {
  name: string;
  /** Its help: usage lines and what it does (`junction <name> --help`). */
  help: string;
  run(ctx: CommandContext, args: string[]): Promise<number>;
}

/** One subcommand: its usage line (after `junction <command>`), a line saying what it does, and its code. */
export interface Subcommand {
  usage: string;
  summary: string;
  run(ctx: CommandContext, args: string[]): Promise<number>;
}

/** A command made of subcommands (`junction connections list ...`), its help made from theirs. */
export function withSubcommands(name: string, about: string, subs: Record<string, Subcommand>): Command {
  const help = [
    `junction ${name}: ${about}`,
    "",
    ...Object.entries(subs).flatMap(([sub, s]) => [
      `  junction ${name} ${sub} ${s.usage}`.trimEnd(),
      `      ${s.summary}`,
    ]),
  ].join("\n");
  return {
    name,
    help,
    run(ctx, args) {
      const [sub, ...rest] = args;
      const found = sub === undefined ? undefined : subs[sub];
      if (!found)
        throw new UsageError(sub === undefined ? `${name} needs a subcommand` : `unknown subcommand "${name} ${sub}"`);
      return found.run(ctx, rest);
    },
  };
}
