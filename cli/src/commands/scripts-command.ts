import { readdir, readFile, stat } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { ApiError } from "./api-client.ts";
import {
  type CommandContext,
  EXIT,
  flag,
  parseArgs,
  positionals,
  printJson,
  printList,
  query,
  UsageError,
  withSubcommands,
} from "./command-kit.ts";
import { Progress } from "./progress.ts";

/** A deployed script as the REST API shows it (the fields printed). */
interface ScriptView {
  provider_config_key: string;
  name: string;
  version: number;
  kind: string;
  frequency: string | null;
  event: string | null;
}

interface ScriptRun {
  id: string;
  provider_config_key: string;
  script_name: string;
  connection_id: string | null;
  trigger: string | null;
  status: string | null;
  started_at: string | null;
  duration_ms: number | null;
  error?: { message?: string } | null;
}

const SCRIPT_FILE = /\.(ts|js|mjs)$/;

/** The script files named: files as they are, a directory's .ts/.js files (not its subdirectories). */
async function scriptFiles(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) throw new UsageError(`cannot read ${path}: no such file or directory`);
    if (!info.isDirectory()) files.push(path);
    else {
      const inDir = (await readdir(path)).filter((f) => SCRIPT_FILE.test(f) && !f.endsWith(".d.ts")).sort();
      files.push(...inDir.map((f) => join(path, f)));
    }
  }
  return files;
}

async function deploy(ctx: CommandContext, args: string[]): Promise<number> {
  const parsed = parseArgs(args, ["name"], ["forward-webhooks-too", "no-forward-webhooks-too"]);
  const [integration, ...paths] = parsed.positional;
  if (!integration || paths.length === 0) throw new UsageError("expected <integration> <file | directory>...");
  const files = await scriptFiles(paths);
  const name = flag(parsed, "name");
  if (name !== undefined && (files.length !== 1 || name === ""))
    throw new UsageError("--name needs one file and a name");
  const forward = parsed.booleans.has("forward-webhooks-too")
    ? true
    : parsed.booleans.has("no-forward-webhooks-too")
      ? false
      : undefined;
  const progress = new Progress(ctx.io, files.length, "deploying");
  const deployed: ScriptView[] = [];
  for (const file of files) {
    const filename = basename(file);
    const body = {
      provider_config_key: integration,
      name: name ?? basename(filename, extname(filename)),
      filename,
      source: await readFile(file, "utf8"),
      ...(forward === undefined ? {} : { forward_webhooks_too: forward }),
    };
    try {
      const res = await ctx.api.call<{ data: ScriptView }>("POST", "/scripts", body);
      deployed.push(res.data);
      if (!ctx.json)
        ctx.io.out(`deployed ${integration}/${res.data.name} version ${res.data.version} (${describe(res.data)})`);
      progress.ok(filename);
    } catch (err) {
      // One file: its error is the command's (printed by the caller, with the script's file:line:column).
      if (files.length === 1 || !(err instanceof ApiError) || err.status === undefined) throw err;
      progress.fail(`${filename}: ${err.message}`);
      for (const e of err.body?.errors ?? []) ctx.io.err(`  ${e.path}: ${e.message}`);
    }
  }
  if (ctx.json) printJson(ctx.io, deployed);
  return progress.finish() ? EXIT.ok : EXIT.refused;
}

/** `junction scripts ...` (spec: Upload and deploy). */
export const scriptsCommand = withSubcommands("scripts", "customer scripts: syncs, actions, event scripts", {
  deploy: {
    usage: "<integration> <file | directory>... [--name <name>] [--forward-webhooks-too | --no-forward-webhooks-too]",
    summary:
      "validates and deploys script files (a directory: each .ts/.js file in it), named after the file unless --name; progress on stderr",
    run: deploy,
  },
  list: {
    usage: "[integration]",
    summary: "deployed scripts: integration/name, version, kind",
    async run(ctx, args) {
      const [integration] = positionals(parseArgs(args), ["integration"], 1);
      const res = await ctx.api.call<{ data: ScriptView[] }>(
        "GET",
        `/scripts${query({ provider_config_key: integration })}`,
      );
      if (ctx.json) printJson(ctx.io, res.data);
      else if (res.data.length === 0) ctx.io.out("no scripts deployed");
      else
        for (const s of res.data)
          ctx.io.out(`${s.provider_config_key}/${s.name}\tversion ${s.version}\t${describe(s)}`);
      return EXIT.ok;
    },
  },
  remove: {
    usage: "<integration> <name>",
    summary: "removes a script, every version of it",
    async run(ctx, args) {
      const [integration, name] = positionals(parseArgs(args), ["integration", "name"]) as [string, string];
      const path = `/scripts/${encodeURIComponent(integration)}/${encodeURIComponent(name)}`;
      const res = await ctx.api.call<{ data: { removed_versions: number } }>("DELETE", path);
      if (ctx.json) printJson(ctx.io, res.data);
      else
        ctx.io.out(
          `removed ${integration}/${name} (${res.data.removed_versions} version${res.data.removed_versions === 1 ? "" : "s"})`,
        );
      return EXIT.ok;
    },
  },
  runs: {
    usage: "[--integration <key>] [--connection <id>] [--script <name>] [--status <status>] [--limit <n>]",
    summary: "runs, newest first: id, script, connection, trigger, status, started, duration",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration", "connection", "script", "status", "limit"]);
      positionals(parsed, []);
      const q = query({
        provider_config_key: flag(parsed, "integration"),
        connection_id: flag(parsed, "connection"),
        script: flag(parsed, "script"),
        status: flag(parsed, "status"),
        limit: flag(parsed, "limit"),
      });
      const res = await ctx.api.call<{ data: ScriptRun[] }>("GET", `/scripts/runs${q}`);
      printList(
        ctx,
        res.data,
        (r) => [
          r.id,
          `${r.provider_config_key}/${r.script_name}`,
          r.connection_id,
          r.trigger,
          r.status,
          r.started_at,
          r.duration_ms === null ? null : `${Math.round(r.duration_ms)} ms`,
        ],
        "no runs",
      );
      return EXIT.ok;
    },
  },
  logs: {
    usage: "<run-id>",
    summary: "a run's log lines (time, level, message), then its error if it failed",
    async run(ctx, args) {
      const [id] = positionals(parseArgs(args), ["run-id"]);
      const res = await ctx.api.call<{
        data: ScriptRun & {
          logs: { level: string | null; message: string; at: string | null }[];
          logs_truncated: boolean;
        };
      }>("GET", `/scripts/runs/${encodeURIComponent(id as string)}`);
      const run = res.data;
      if (ctx.json) {
        printJson(ctx.io, {
          logs: run.logs,
          logs_truncated: run.logs_truncated,
          status: run.status,
          error: run.error ?? null,
        });
        return EXIT.ok;
      }
      for (const line of run.logs) ctx.io.out(`${line.at ?? "-"} ${(line.level ?? "log").padEnd(5)} ${line.message}`);
      if (run.logs.length === 0) ctx.io.err("no log lines");
      if (run.logs_truncated) ctx.io.err("(logs truncated: the run wrote more than is kept)");
      ctx.io.err(`run ${run.id}: ${run.status ?? "unknown"}${run.error?.message ? `: ${run.error.message}` : ""}`);
      return EXIT.ok;
    },
  },
});

function describe(s: { kind: string; frequency: string | null; event: string | null }): string {
  if (s.kind === "action") return "action";
  return s.kind === "sync" ? `sync, every ${s.frequency}` : `on ${s.event}`;
}
