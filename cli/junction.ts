#!/usr/bin/env bun
/**
 * The Junction command.
 *   junction start              everything in one process (the embedded default)
 *   junction serve <service>    one service of the distributed topology
 *                               (connection | proxy | channel | webhook | scripts | gateway)
 *   junction scripts ...        deploy and list customer scripts of a running Junction
 */
import { ConfigError, createLogger } from "@junction/platform";
import { startEmbedded } from "./src/embedded.ts";
import { SERVICES, type ServiceName } from "./src/service-names.ts";
import { printGeneratedKey } from "./src/secret-key-bootstrap.ts";
import { runScriptsCommand } from "./src/scripts-command.ts";

const USAGE = `usage:
  junction start                 run every service in one process (embedded default)
  junction serve <service>       run one service (${SERVICES.join(" | ")}) of the distributed topology
  junction scripts deploy <integration> <file> [--name <name>]
  junction scripts list [integration]`;

async function main(argv: string[]): Promise<void> {
  const [command, arg] = argv;
  if (command === "scripts") process.exit(await runScriptsCommand(argv.slice(1)));
  const logger = createLogger();
  let stop: () => Promise<void>;
  if (command === "start") {
    const junction = await startEmbedded({ logger });
    if (junction.generatedSecretKey) printGeneratedKey(junction.generatedSecretKey);
    process.stderr.write(`\n  Junction is listening on ${junction.baseUrl}\n\n`);
    stop = junction.stop;
  } else if (command === "serve" && SERVICES.includes(arg as ServiceName)) {
    // Loaded only here: `junction start` never loads the distributed topology's transports (NATS, h2c).
    const { serveService } = await import("./src/distributed.ts");
    const svc = await serveService(arg as ServiceName, process.env, logger);
    logger.info("service listening", { service: svc.name, url: svc.url, adminUrl: svc.adminUrl });
    // Also on the terminal whatever the log level: operators and supervisors wait for this line.
    process.stderr.write(`junction: ${svc.name} listening on ${svc.url}\n`);
    stop = svc.stop;
  } else {
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

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`junction: ${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`junction: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
