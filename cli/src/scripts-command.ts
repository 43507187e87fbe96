import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";

type Env = Record<string, string | undefined>;

/** A deployed script as the REST API shows it (the fields this command prints). */
interface ScriptView {
  provider_config_key: string;
  name: string;
  version: number;
  kind: string;
  frequency: string | null;
  event: string | null;
}

/** What the REST API answers: data, or the one error body. */
interface ApiBody<T> {
  data: T;
  error?: { message: string; errors?: { path: string; message: string }[] };
}

export const SCRIPTS_USAGE = `usage:
  junction scripts deploy <integration> <file> [--name <name>] [--forward-webhooks-too | --no-forward-webhooks-too]
  junction scripts list [integration]
Talks to a running Junction over HTTP: JUNCTION_URL (default http://localhost:3003), JUNCTION_SECRET_KEY.`;

/** Where the command writes: the terminal, or a test's buffer. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

const terminal: CommandOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * `junction scripts ...` (issue 6, Upload and deploy): deploys a script file to an integration, or
 * lists deployed scripts, through the REST API. Returns the exit code: 0, 1 when Junction refused
 * (its reason printed, with file:line:column for a bad script), 2 for a usage error.
 */
export async function runScriptsCommand(args: string[], env: Env = process.env, io = terminal): Promise<number> {
  const [sub, ...rest] = args;
  const key = env.JUNCTION_SECRET_KEY;
  if (!key) {
    io.err("junction: set JUNCTION_SECRET_KEY to a secret key of the Junction to talk to");
    return 2;
  }
  const base = (env.JUNCTION_URL ?? "http://localhost:3003").replace(/\/+$/, "");
  const call = async <T>(method: string, path: string, body?: unknown): Promise<ApiBody<T> | null> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      io.err(`junction: cannot reach ${base}: ${(err as Error).message}`);
      return null;
    }
    const parsed = (await res.json().catch(() => null)) as ApiBody<T> | null;
    if (!res.ok) {
      io.err(`junction: ${parsed?.error?.message ?? `HTTP ${res.status}`}`);
      for (const e of parsed?.error?.errors ?? []) io.err(`  ${e.path}: ${e.message}`);
      return null;
    }
    return parsed;
  };

  if (sub === "deploy") {
    const { positional, name, forward } = parseDeployArgs(rest);
    const [integration, file] = positional;
    if (!integration || !file || positional.length > 2 || name === "") {
      io.err(SCRIPTS_USAGE);
      return 2;
    }
    let source: string;
    try {
      source = await readFile(file, "utf8");
    } catch (err) {
      io.err(`junction: cannot read ${file}: ${(err as Error).message}`);
      return 2;
    }
    const filename = basename(file);
    const body = {
      provider_config_key: integration,
      name: name ?? basename(filename, extname(filename)),
      filename,
      source,
      ...(forward === undefined ? {} : { forward_webhooks_too: forward }),
    };
    const res = await call<ScriptView>("POST", "/scripts", body);
    if (!res) return 1;
    io.out(`deployed ${integration}/${res.data.name} version ${res.data.version} (${describe(res.data)})`);
    return 0;
  }
  if (sub === "list" && rest.length <= 1) {
    const query = rest[0] ? `?provider_config_key=${encodeURIComponent(rest[0])}` : "";
    const res = await call<ScriptView[]>("GET", `/scripts${query}`);
    if (!res) return 1;
    if (res.data.length === 0) io.out("no scripts deployed");
    for (const s of res.data) io.out(`${s.provider_config_key}/${s.name}\tversion ${s.version}\t${describe(s)}`);
    return 0;
  }
  io.err(SCRIPTS_USAGE);
  return 2;
}

function parseDeployArgs(args: string[]): { positional: string[]; name?: string; forward?: boolean } {
  const positional: string[] = [];
  let name: string | undefined;
  let forward: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--name") name = args[++i] ?? "";
    else if (arg.startsWith("--name=")) name = arg.slice("--name=".length);
    else if (arg === "--forward-webhooks-too") forward = true;
    else if (arg === "--no-forward-webhooks-too") forward = false;
    else positional.push(arg);
  }
  return { positional, name, forward };
}

function describe(s: { kind: string; frequency: string | null; event: string | null }): string {
  if (s.kind === "action") return "action";
  return s.kind === "sync" ? `sync, every ${s.frequency}` : `on ${s.event}`;
}
