import { ApiClient, ApiError } from "./api-client.ts";
import { channelsCommand } from "./channels-command.ts";
import { type Command, type CommandIo, EXIT, terminal, UsageError } from "./command-kit.ts";
import { connectCommand, connectionsCommand, metadataCommand } from "./connections-command.ts";
import { deliveriesCommand } from "./deliveries-command.ts";
import { integrationsCommand } from "./integrations-command.ts";
import { proxyCommand } from "./proxy-command.ts";
import { scriptsCommand } from "./scripts-command.ts";
import { secretKeysCommand } from "./secret-keys-command.ts";
import { syncsCommand } from "./syncs-command.ts";
import { USAGE } from "./usage.ts";

type Env = Record<string, string | undefined>;

/** The commands that talk to a running Junction over its REST API, by name. */
export const API_COMMANDS: Record<string, Command> = Object.fromEntries(
  [
    integrationsCommand,
    connectionsCommand,
    connectCommand,
    metadataCommand,
    proxyCommand,
    deliveriesCommand,
    channelsCommand,
    scriptsCommand,
    syncsCommand,
    secretKeysCommand,
  ].map((c) => [c.name, c]),
);

const DEFAULT_URL = "http://localhost:3003";

/**
 * Runs `junction <command> ...` when it is an API command or a request for help, and returns its exit
 * code (docs/cli.md); null for the commands that run Junction itself. `--url`, `--secret-key`, `--json`
 * and `--help` may stand anywhere; JUNCTION_URL and JUNCTION_SECRET_KEY stand in for the first two.
 */
export async function runApiCommand(
  argv: string[],
  env: Env = process.env,
  io: CommandIo = terminal,
): Promise<number | null> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    io.out(topic && API_COMMANDS[topic] ? (API_COMMANDS[topic] as Command).help : USAGE);
    return EXIT.ok;
  }
  const command = API_COMMANDS[name];
  if (!command) return null;
  const args: string[] = [];
  let url = env.JUNCTION_URL || DEFAULT_URL;
  let key = env.JUNCTION_SECRET_KEY;
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--help" || arg === "-h") {
      io.out(command.help);
      return EXIT.ok;
    }
    if (arg === "--json") json = true;
    else if (arg === "--url" || arg === "--secret-key") {
      const value = rest[++i];
      if (value === undefined) return usage(io, command, `${arg} needs a value`);
      if (arg === "--url") url = value;
      else key = value;
    } else if (arg.startsWith("--url=")) url = arg.slice("--url=".length);
    else if (arg.startsWith("--secret-key=")) key = arg.slice("--secret-key=".length);
    else args.push(arg);
  }
  if (!key) {
    io.err("junction: set JUNCTION_SECRET_KEY (or --secret-key) to a secret key of the Junction to talk to");
    return EXIT.usage;
  }
  try {
    new URL(url);
  } catch {
    return usage(io, command, `JUNCTION_URL (or --url) must be a URL such as ${DEFAULT_URL}, got "${url}"`);
  }
  try {
    return await command.run({ api: new ApiClient(url, key), io, json }, args);
  } catch (err) {
    if (err instanceof UsageError) return usage(io, command, err.message);
    if (err instanceof ApiError) {
      const where = err.status === undefined ? "" : ` [${err.body ? `${err.body.code}, ` : ""}HTTP ${err.status}]`;
      io.err(`junction: ${err.message}${where}`);
      for (const e of err.body?.errors ?? []) io.err(`  ${e.location ? `${e.location} ` : ""}${e.path}: ${e.message}`);
      return err.exitCode;
    }
    // Never a stack trace: the message, and where to look.
    io.err(`junction: ${name} failed: ${(err as Error).message ?? String(err)}`);
    return EXIT.refused;
  }
}

function usage(io: CommandIo, command: Command, message: string): number {
  io.err(`junction ${command.name}: ${message}\n\n${command.help}`);
  return EXIT.usage;
}
