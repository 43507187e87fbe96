import { ConfigError, createLogger } from "@junction/platform";
import { startEmbedded } from "./embedded.ts";
import { SERVICES, type ServiceName } from "./service-names.ts";
import { printGeneratedKey, printKeptKeyNotice } from "./secret-key-bootstrap.ts";
import { runApiCommand } from "./commands/run-api-command.ts";
import { USAGE } from "./commands/usage.ts";

async function main(argv: string[]): Promise<void> {
  const [command, arg] = argv;
  if (command === "up" || command === "down") {
    // Loaded only here, as the distributed topology's code below: `junction start` stays small.
    const { runUp, runDown } = await import("./up/up-command.ts");
    process.exit(await (command === "up" ? runUp : runDown)(argv.slice(1)));
  }
  if (command === "rekey") {
    let stop = false;
    process.on("SIGINT", () => {
      stop = true;
    });
    const { runRekeyCommand } = await import("./rekey-command.ts");
    process.exit(await runRekeyCommand(argv.slice(1), process.env, undefined, () => stop));
  }
  const code = await runApiCommand(argv);
  if (code !== null) process.exit(code);
  const logger = createLogger();
  let stop: () => Promise<void>;
  if (command === "start") {
    const junction = await startEmbedded({ logger });
    if (junction.generatedSecretKey) printGeneratedKey(junction.generatedSecretKey);
    else if (!process.env.JUNCTION_SECRET_KEY) printKeptKeyNotice(junction.databaseFile);
    process.stderr.write(`\n  Junction is listening on ${junction.baseUrl}\n\n`);
    stop = junction.stop;
  } else if (command === "serve" && arg === "sandbox") {
    const { serveSandbox } = await import("./sandbox-process.ts");
    const sandbox = await serveSandbox(process.env);
    logger.info("sandbox upstream listening", { url: sandbox.url, writtenTo: sandbox.credentialsFile });
    process.stderr.write(`junction: sandbox listening on ${sandbox.url}\n`);
    stop = sandbox.stop;
  } else if (command === "serve" && SERVICES.includes(arg as ServiceName)) {
    const { serveService } = await import("./distributed.ts");
    const svc = await serveService(arg as ServiceName, process.env, logger);
    logger.info("service listening", { service: svc.name, url: svc.url, adminUrl: svc.adminUrl });
    // Also on the terminal whatever the log level: operators and supervisors wait for this line.
    process.stderr.write(`junction: ${svc.name} listening on ${svc.url}\n`);
    stop = svc.stop;
  } else {
    if (command === "serve")
      process.stderr.write(`junction: serve needs one of ${[...SERVICES, "sandbox"].join(", ")}\n\n`);
    else process.stderr.write(`junction: unknown command "${command}"\n\n`);
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    await stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/** Runs the command (loaded by cli/junction.ts once the process's allocator is settled: allocator-settings.ts). */
export function runCommand(argv: string[]): void {
  main(argv).catch((err) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`junction: ${err.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`junction: failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
