import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { envFilePath, loadOrCreateEnvFile } from "./env-file.ts";
import { isOurs, pidFilePath, readPidFile, removePidFile, writePidFile } from "./pid-file.ts";
import { Supervisor } from "./supervisor.ts";
import { planTopology } from "./topology-plan.ts";
import { portIsFree } from "../taken-port.ts";

type Env = Record<string, string | undefined>;

export const UP_USAGE = `usage:
  junction up [--env-file <file>]   run the distributed topology on this machine: nats-server, the sandbox
                                    upstream, every service and the gateway, each its own process, supervised
  junction down                     stop what \`junction up\` started (from its pid file in the data dir)
The data dir is JUNCTION_DATA_DIR (default ./.data); the env file defaults to {data dir}/distributed.env,
written from .env.distributed.example with a fresh encryption key on first use.`;

const say = (line: string) => process.stderr.write(`junction up: ${line}\n`);

/** `junction up`: starts the topology and supervises it until SIGINT or SIGTERM (or `junction down`). */
export async function runUp(args: string[], env: Env = process.env): Promise<number> {
  const parsed = upArgs(args);
  if (typeof parsed === "number") return parsed;
  const dataDir = resolve(env.JUNCTION_DATA_DIR || ".data");
  mkdirSync(dataDir, { recursive: true });
  const pidFile = pidFilePath(dataDir);
  const previous = readPidFile(pidFile);
  if (previous && isOurs(previous.supervisor)) {
    say(`already running (pid ${previous.supervisor}, data dir ${dataDir}); stop it with "junction down"`);
    return 1;
  }
  const file = resolve(parsed.envFile ?? envFilePath(dataDir));
  const { values, created } = loadOrCreateEnvFile(file);
  if (created) say(`wrote ${file} from .env.distributed.example, with a new encryption key`);
  // The variables of this shell win over the file's.
  const plan = planTopology({ ...values, ...env }, dataDir);
  // Every port checked before anything starts: a start that cannot listen leaves no process and no key behind.
  const taken = plan.ports.filter(({ port }) => !portIsFree(port, plan.env.JUNCTION_HOST));
  if (taken.length > 0) {
    say(`not started: ${taken.map((t) => `port ${t.port} (${t.variable})`).join(", ")} in use; free it or set another`);
    return 1;
  }
  say(`starting ${plan.processes.map((p) => p.name).join(", ")} (data dir ${dataDir}, env file ${file})`);
  return supervise(plan, pidFile);
}

/** `--env-file <file>` (or `--env-file=<file>`); anything else prints the usage: the exit code then. */
function upArgs(args: string[]): { envFile?: string | undefined } | number {
  let envFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--env-file" && args[i + 1]) envFile = args[++i];
    else if (args[i]?.startsWith("--env-file=")) envFile = args[i]?.slice("--env-file=".length);
    else {
      process.stderr.write(`${UP_USAGE}\n`);
      return args[i] === "--help" || args[i] === "-h" ? 0 : 2;
    }
  }
  return { envFile };
}

/** Starts the plan's processes and keeps them running until a signal; its pid file says what runs. */
async function supervise(plan: ReturnType<typeof planTopology>, pidFile: string): Promise<number> {
  const started = Date.now();
  const supervisor = new Supervisor({
    env: plan.env,
    output: {
      event: say,
      child: (name, line) => process.stdout.write(`${name.padEnd(10)} | ${line}\n`),
    },
    onPids: (processes) => writePidFile(pidFile, { supervisor: process.pid, processes }),
  });
  let stopping: Promise<void> | undefined;
  const stop = (why: string) => {
    stopping ??= (async () => {
      say(`stopping (${why})`);
      await supervisor.stop();
      removePidFile(pidFile);
      say("stopped");
    })();
    return stopping;
  };
  process.on("SIGINT", () => void stop("SIGINT").then(() => process.exit(0)));
  process.on("SIGTERM", () => void stop("SIGTERM").then(() => process.exit(0)));
  try {
    await supervisor.start(plan.processes);
  } catch (err) {
    say((err as Error).message);
    await stop("a process did not start");
    return 1;
  }
  if (stopping) return 0;
  say(`${plan.processes.length} processes running in ${Date.now() - started} ms; gateway on ${plan.gatewayUrl}`);
  say(`stop with Ctrl-C or "junction down"`);
  await new Promise(() => {}); // supervised until a signal
  return 0;
}

/** `junction down`: stops the `junction up` of this data dir, and anything it started that outlived it. */
export async function runDown(args: string[], env: Env = process.env): Promise<number> {
  if (args.length > 0) {
    process.stderr.write(`${UP_USAGE}\n`);
    return args[0] === "--help" || args[0] === "-h" ? 0 : 2;
  }
  const dataDir = resolve(env.JUNCTION_DATA_DIR || ".data");
  const pidFile = pidFilePath(dataDir);
  const record = readPidFile(pidFile);
  if (!record) {
    process.stderr.write(`junction down: nothing to stop (no pid file at ${pidFile})\n`);
    return 0;
  }
  if (isOurs(record.supervisor)) {
    process.kill(record.supervisor, "SIGTERM");
    await waitGone([record.supervisor], 30_000);
  }
  // What the supervisor could not stop (it was killed itself): its processes, from the pid file.
  const left = Object.values(record.processes).filter(isOurs);
  for (const pid of left) process.kill(pid, "SIGTERM");
  const stubborn = await waitGone(left, 10_000);
  for (const pid of stubborn) process.kill(pid, "SIGKILL");
  await waitGone(stubborn, 5_000);
  removePidFile(pidFile);
  const count = Object.keys(record.processes).length;
  process.stderr.write(
    `junction down: stopped junction up (pid ${record.supervisor})${left.length ? `, and ${left.length} of its ${count} processes it had left running` : ""}\n`,
  );
  return 0;
}

/** Waits until none of `pids` is alive; returns those still alive at the deadline. */
async function waitGone(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  let alive = pids.filter(isOurs);
  while (alive.length > 0 && Date.now() < deadline) {
    await Bun.sleep(50);
    alive = alive.filter(isOurs);
  }
  return alive;
}
