import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "@junction/platform";
import { SERVICE_TABLE } from "../wiring/service-table.ts";
import { portVariable, urlVariable } from "../wiring/addresses.ts";

type Env = Record<string, string | undefined>;

/** One process `junction up` starts and supervises. */
export interface ProcessPlan {
  name: string;
  command: string[];
  /** A line the process prints once it serves. */
  ready: RegExp;
  /** How long it may take to print it. */
  readyWithinMs: number;
}

export interface TopologyPlan {
  processes: ProcessPlan[];
  /** The environment every process gets. */
  env: Record<string, string>;
  gatewayUrl: string;
  /** Each port a process will listen on, by the variable that sets it. */
  ports: { variable: string; port: number }[];
}

const JUNCTION = join(import.meta.dir, "..", "..", "junction.ts");
const DEFAULT_GATEWAY_PORT = 3003;
const DEFAULT_SANDBOX_PORT = 4100;

/** `nats-server` on PATH or where Debian installs it, or null. */
export function findNatsServer(): string | null {
  return Bun.which("nats-server") ?? (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : null);
}

function portOf(env: Env, variable: string, fallback: number): number {
  const raw = env[variable];
  const port = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new ConfigError(`${variable} must be a port number (1-65535), got "${raw}"`);
  }
  return port;
}

/**
 * What `junction up` runs, in start order: nats-server with JetStream in the data dir, the sandbox upstream
 * (unless JUNCTION_SANDBOX_UPSTREAM=false), every service of the table, then the gateway; and the one
 * environment that places each on its port of 127.0.0.1.
 */
export function planTopology(input: Env, dataDir: string): TopologyPlan {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) env[k] = v;
  env.JUNCTION_DATA_DIR = dataDir;
  env.JUNCTION_HOST ??= "127.0.0.1";
  env.JUNCTION_NATS_URL ??= "nats://127.0.0.1:4222";
  const natsPort = natsPortOf(env.JUNCTION_NATS_URL);
  const gatewayPort = portOf(env, "PORT", DEFAULT_GATEWAY_PORT);
  env.PORT = String(gatewayPort);
  env.JUNCTION_BASE_URL ??= `http://localhost:${gatewayPort}`;
  checkBaseUrl(env.JUNCTION_BASE_URL, gatewayPort);

  const processes: ProcessPlan[] = [natsPlan(dataDir, natsPort)];
  if (!["false", "0", "no", "off"].includes((env.JUNCTION_SANDBOX_UPSTREAM ?? "true").toLowerCase())) {
    env.JUNCTION_SANDBOX_UPSTREAM_PORT = String(portOf(env, "JUNCTION_SANDBOX_UPSTREAM_PORT", DEFAULT_SANDBOX_PORT));
    // The connection service offers the sandbox's test credentials, unless the operator names a file.
    env.JUNCTION_TEST_CREDENTIALS_FILE ??= join(dataDir, "sandbox-credentials.json");
    processes.push(serve("sandbox"));
  }
  for (const spec of SERVICE_TABLE) {
    const port = portOf(env, portVariable(spec.name), spec.defaultPort);
    env[portVariable(spec.name)] = String(port);
    env[urlVariable(spec.name)] ??= `http://127.0.0.1:${port}`;
    processes.push(serve(spec.name));
  }
  // The gateway waits for the connection service to register the secret key before it serves.
  processes.push(serve("gateway", 90_000));
  const ports = [
    { variable: "JUNCTION_NATS_URL", port: natsPort },
    ...["JUNCTION_SANDBOX_UPSTREAM_PORT", ...SERVICE_TABLE.map((spec) => portVariable(spec.name)), "PORT"].flatMap(
      (variable) => (env[variable] ? [{ variable, port: Number(env[variable]) }] : []),
    ),
  ];
  return { processes, env, gatewayUrl: `http://127.0.0.1:${gatewayPort}`, ports };
}

function natsPortOf(url: string): number {
  try {
    return Number(new URL(url).port || 4222);
  } catch {
    throw new ConfigError(`JUNCTION_NATS_URL must be a URL such as nats://127.0.0.1:4222, got "${url}"`);
  }
}

/** nats-server with JetStream in the data dir, on 127.0.0.1; a ConfigError when it is not installed. */
function natsPlan(dataDir: string, natsPort: number): ProcessPlan {
  const nats = findNatsServer();
  if (!nats) {
    throw new ConfigError(
      'nats-server not found: run "npm run start:distributed" (it installs it with apt-get where it may) or "apt-get install -y nats-server"',
    );
  }
  return {
    name: "nats",
    command: [nats, "-js", "-sd", join(dataDir, "nats"), "-a", "127.0.0.1", "-p", String(natsPort)],
    ready: /Server is ready/,
    readyWithinMs: 15_000,
  };
}

/** `junction serve <name>`, ready when it says it listens. */
function serve(name: string, readyWithinMs = 30_000): ProcessPlan {
  return {
    name,
    command: [process.execPath, JUNCTION, "serve", name],
    ready: new RegExp(`junction: ${name} listening on `),
    readyWithinMs,
  };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A base URL on this machine must name the gateway's port: the webhook URL, the connect link and the OAuth
 * redirect are made from it, and with another port every consent ends at another server (`unknown_state`).
 * A base URL of another host (a reverse proxy, a tunnel) may use any port.
 */
export function checkBaseUrl(baseUrl: string, gatewayPort: number): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`JUNCTION_BASE_URL must be a URL such as http://localhost:${gatewayPort}, got "${baseUrl}"`);
  }
  if (!LOOPBACK.has(url.hostname)) return;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (port === gatewayPort) return;
  throw new ConfigError(
    `JUNCTION_BASE_URL is ${baseUrl}, but the gateway listens on port ${gatewayPort} (PORT): webhook URLs, ` +
      `connect links and the OAuth redirect would point at port ${port}. Set JUNCTION_BASE_URL=` +
      `http://${url.hostname}:${gatewayPort}, or remove it (from the shell and the env file) to derive it from PORT.`,
  );
}
