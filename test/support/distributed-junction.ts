import { randomBytes } from "node:crypto";
import { SERVICES, type ServiceName } from "@junction/cli/distributed";
import { adminPortVariable } from "@junction/cli/admin-server";
import { serviceAddressEnv, urlVariable } from "@junction/cli/wiring/addresses";
import { freePort, portWasTaken } from "@junction/platform/testing/free-port";
import { type JunctionProcess, startJunctionProcess } from "./junction-process.ts";
import { waitFor } from "./wait-for.ts";

export interface DistributedJunctionOptions {
  natsUrl: string;
  dataDir: string;
  secretKey: string;
  /** The services besides the gateway, each its own process (default: every one). */
  services?: readonly Exclude<ServiceName, "gateway">[];
  /** {base_url} (default: the gateway's URL). */
  baseUrl?: string;
  /** More environment for every process (log level, tuning, test switches). */
  env?: Record<string, string>;
  /** Waited for after the gateway is healthy, inside the same failure report (say, one process answering through it). */
  ready?: (gatewayUrl: string) => Promise<unknown>;
  /** How long each process may take to say it listens (default 30 s; a loaded machine may need more). */
  startTimeoutMs?: number;
}

export interface DistributedJunction {
  gatewayUrl: string;
  /** Each service process's h2c URL, by service. */
  serviceUrls: Partial<Record<ServiceName, string>>;
  /** Each service process's admin URL (/metrics, /ready, /health), by service. */
  adminUrls: Partial<Record<ServiceName, string>>;
  procs: JunctionProcess[];
  /** The environment every process got (to start one again). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The distributed topology for an end-to-end test: the gateway and each service as its own
 * `junction serve` process on free ports, talking h2c and over the nats-server at `natsUrl`, one
 * encryption key. Resolves once every process says it listens, the gateway is healthy and `ready`
 * passed; otherwise stops them and throws with every process's output. A start that fails because a port was
 * taken meanwhile is tried again on other ports (three times in all).
 */
export async function startDistributedJunction(options: DistributedJunctionOptions): Promise<DistributedJunction> {
  // A port found free can still be taken before a process binds it: start again on other ports then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !portWasTaken((err as Error).message)) throw err;
    }
  }
}

const PORT_ATTEMPTS = 3;

async function startOnce(options: DistributedJunctionOptions): Promise<DistributedJunction> {
  const services = options.services ?? SERVICES.filter((s) => s !== "gateway");
  const gatewayPort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const env: Record<string, string> = {
    JUNCTION_DATA_DIR: options.dataDir,
    JUNCTION_BASE_URL: options.baseUrl ?? gatewayUrl,
    JUNCTION_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JUNCTION_SECRET_KEY: options.secretKey,
    JUNCTION_NATS_URL: options.natsUrl,
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1,localhost",
    PORT: String(gatewayPort),
    ...options.env,
  };
  const serviceUrls: Partial<Record<ServiceName, string>> = { gateway: gatewayUrl };
  const adminUrls: Partial<Record<ServiceName, string>> = {};
  for (const name of services) {
    const port = await freePort();
    Object.assign(env, serviceAddressEnv(name, port));
    serviceUrls[name] = env[urlVariable(name)];
    // Its admin listener on a free port too (the default, port + 100, may be taken on a test machine).
    const adminPort = await freePort();
    env[adminPortVariable(name)] = String(adminPort);
    adminUrls[name] = `http://127.0.0.1:${adminPort}`;
  }
  const procs = [...services, "gateway" as const].map((name) => startJunctionProcess(name, ["serve", name], env));
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop()));
  };
  try {
    await Promise.all(procs.map((p) => p.listening(options.startTimeoutMs)));
    await waitFor("the gateway to report healthy", async () => (await fetch(`${gatewayUrl}/health`)).ok, 30_000, 50);
    await options.ready?.(gatewayUrl);
  } catch (err) {
    const output = procs.map((p) => `--- ${p.name}\n${p.output()}`).join("\n");
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return { gatewayUrl, serviceUrls, adminUrls, procs, env, stop };
}

/**
 * One more `junction serve gateway` on `port` with the topology's environment (its data dir, services and
 * bus): resolves once healthy; otherwise stops it and throws with its output.
 */
export async function startGatewayProcess(
  junction: DistributedJunction,
  name: string,
  port: string,
): Promise<JunctionProcess> {
  const proc = startJunctionProcess(name, ["serve", "gateway"], { ...junction.env, PORT: port });
  try {
    await proc.listening(60_000);
    await waitFor(
      `${name} to report healthy`,
      async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
      30_000,
      50,
    );
  } catch (err) {
    await proc.stop();
    throw new Error(`${(err as Error).message}\n${proc.output()}`);
  }
  return proc;
}

/** Calls the gateway at `url()` with the secret key: its status and JSON body. */
export function gatewayApi(url: () => string, secretKey: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** A `ready` check: the scripts process answers through the gateway. */
export function scriptsServiceAnswers(secretKey: string) {
  return (url: string) =>
    waitFor(
      "the scripts service to answer",
      async () => (await fetch(`${url}/scripts`, { headers: { authorization: `Bearer ${secretKey}` } })).status === 200,
      30_000,
      50,
    );
}
