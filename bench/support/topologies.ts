import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { serviceAddressEnv } from "@junction/cli/wiring/addresses";
import { type BenchProcess, freePort, type Pinning, startProcess, waitHealthy } from "./processes.ts";

export const SECRET_KEY = "jct_sk_benchmark_0123456789abcdefghij";
export const INTEGRATION = "bench";
export const CONNECTION = "bench-user";

/** Something the load generator calls: a proxy under test, or the upstream. */
export interface Target {
  name: string;
  /** Where /proxy/{path} is served. */
  url: string;
  /** Processes whose memory is reported. */
  pids: number[];
  stop(): Promise<void>;
}

const junctionCmd = (pinning: Pinning, ...args: string[]) => [...pinning.server, "bun", "cli/junction.ts", ...args];

export interface EmbeddedOptions {
  /** Another checkout to run (BENCH_COMPARE_ROOT: the code before a change, measured in the same rounds). */
  root?: string;
  /** The target's name in the report (default "embedded"). */
  name?: string;
  /** More settings for the process (e.g. JUNCTION_LOG_LEVEL), over the benchmark's. */
  env?: Record<string, string>;
}

/** The local upstream (bench/support/upstream.ts). */
export async function startUpstream(pinning: Pinning): Promise<Target> {
  const port = await freePort();
  const p = startProcess("upstream", [...pinning.server, "bun", "bench/support/upstream.ts", String(port)], {});
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(p, url);
  return { name: "upstream", url, pids: [p.proc.pid], stop: p.stop };
}

/** The bare Bun passthrough proxy (bench/support/bare-proxy.ts). */
export async function startBareProxy(pinning: Pinning, upstreamUrl: string): Promise<Target> {
  const port = await freePort();
  const p = startProcess(
    "bare",
    [...pinning.server, "bun", "bench/support/bare-proxy.ts", String(port), upstreamUrl],
    {},
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(p, url);
  return { name: "bare", url, pids: [p.proc.pid], stop: p.stop };
}

/** The smallest proxy doing the proxy's per-request checks (spec: Proxy rules) (bench/support/minimal-checked-proxy.ts). */
export async function startFloor(
  pinning: Pinning,
  upstreamUrl: string,
  options: { withLibraries?: boolean } = {},
): Promise<Target> {
  const name = options.withLibraries ? "floor-libraries" : "floor";
  const port = await freePort();
  const p = startProcess(
    name,
    [
      ...pinning.server,
      "bun",
      "bench/support/minimal-checked-proxy.ts",
      String(port),
      upstreamUrl,
      SECRET_KEY,
      INTEGRATION,
      CONNECTION,
      ...(options.withLibraries ? ["--with-libraries"] : []),
    ],
    {},
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(p, url);
  return { name, url, pids: [p.proc.pid], stop: p.stop };
}

/** Junction's embedded default (`junction start`), logging at the default level as in production. */
export async function startEmbedded(
  pinning: Pinning,
  upstreamUrl: string,
  options: EmbeddedOptions = {},
): Promise<Target> {
  const name = options.name ?? "embedded";
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-"));
  const p = startProcess(
    name,
    options.root
      ? [...pinning.server, "bun", join(options.root, "cli/junction.ts"), "start"]
      : junctionCmd(pinning, "start"),
    {
      PORT: String(port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_DATA_DIR: dir,
      JUNCTION_SECRET_KEY: SECRET_KEY,
      JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      ...options.env,
    },
    { quiet: true },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/health`, [p]);
  await addConnection(url, upstreamUrl);
  return {
    name,
    url,
    pids: [p.proc.pid],
    async stop() {
      await p.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The distributed topology: five processes over h2c and a nats-server. */
export async function startDistributed(pinning: Pinning, upstreamUrl: string): Promise<Target> {
  const nats = await startNatsServer();
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-"));
  const names = ["connection", "proxy", "channel", "webhook"] as const;
  const addresses = await Promise.all(names.map(async (n) => serviceAddressEnv(n, await freePort())));
  const gatewayPort = await freePort();
  const url = `http://127.0.0.1:${gatewayPort}`;
  const env: Record<string, string> = {
    JUNCTION_DATA_DIR: dir,
    JUNCTION_BASE_URL: url,
    JUNCTION_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JUNCTION_SECRET_KEY: SECRET_KEY,
    JUNCTION_NATS_URL: nats.url,
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1,localhost",
    PORT: String(gatewayPort),
  };
  for (const address of addresses) Object.assign(env, address);
  const procs: BenchProcess[] = names.map((n) =>
    startProcess(n, junctionCmd(pinning, "serve", n), env, { quiet: true }),
  );
  procs.push(startProcess("gateway", junctionCmd(pinning, "serve", "gateway"), env, { quiet: true }));
  await waitHealthy(`${url}/health`, procs, 60_000);
  await addConnection(url, upstreamUrl);
  return {
    name: "distributed",
    url,
    pids: procs.map((p) => p.proc.pid),
    async stop() {
      await Promise.all(procs.map((p) => p.stop()));
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The headers a caller sends to /proxy. */
export const proxyHeaders = {
  Authorization: `Bearer ${SECRET_KEY}`,
  "Provider-Config-Key": INTEGRATION,
  "Connection-Id": CONNECTION,
};

/** An integration whose operator base URL is the local upstream, and a connection with a long-lived token. */
export async function addConnection(junctionUrl: string, upstreamUrl: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${junctionUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  };
  await post("/integrations", {
    unique_key: INTEGRATION,
    provider: "google-calendar",
    upstream_overrides: { base_url: upstreamUrl },
  });
  await post("/connections", {
    provider_config_key: INTEGRATION,
    connection_id: CONNECTION,
    credentials: {
      type: "OAUTH2",
      access_token: `bench-access-${randomBytes(8).toString("hex")}`,
      refresh_token: "bench-refresh",
      expires_at: Date.now() + 24 * 3_600_000,
    },
  });
}

async function waitUntilListening(p: BenchProcess, url: string): Promise<void> {
  // 401 without a token is an answer: the server is up.
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (p.proc.exitCode !== null || Date.now() > deadline) throw new Error(`${p.name} did not start:\n${p.output()}`);
      await Bun.sleep(25);
    }
  }
}

/** A breakdown server (bench/support/breakdown-server.ts): Junction without part of its request pipeline. */
export async function startBreakdown(
  pinning: Pinning,
  upstreamUrl: string,
  mode:
    | "handler-only"
    | "handler-request-id"
    | "gateway-no-log"
    | "gateway-parts"
    | "floor-in-junction"
    | "floor-junction-modules",
  env: Record<string, string> = {},
): Promise<Target> {
  const port = await freePort();
  const p = startProcess(
    mode,
    [...pinning.server, "bun", "bench/support/breakdown-server.ts", String(port), upstreamUrl, mode],
    env,
    // The request log, when a mode writes it, goes where `junction start`'s goes in the benchmark.
    { quiet: true },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(p, url);
  return { name: mode, url, pids: [p.proc.pid], stop: p.stop };
}

/**
 * A target by the name the thread tools take (bare, floor, embedded, compared or a breakdown mode);
 * THREAD_CPU_ENV='{"JUNCTION_LOG_LEVEL":"warn"}' gives the embedded process settings (to measure one part's cost).
 */
export function startNamedTarget(
  which: string,
  pinning: Pinning,
  upstreamUrl: string,
  compareRoot?: string,
  targetEnv?: Record<string, string>,
): Promise<Target> {
  if (which === "bare") return startBareProxy(pinning, upstreamUrl);
  if (which === "floor") return startFloor(pinning, upstreamUrl);
  if (which === "compared") return startEmbedded(pinning, upstreamUrl, { root: compareRoot, name: "compared" });
  const env = targetEnv ?? (JSON.parse(process.env.THREAD_CPU_ENV ?? "{}") as Record<string, string>);
  if (which === "embedded") return startEmbedded(pinning, upstreamUrl, { env });
  return startBreakdown(pinning, upstreamUrl, which as Parameters<typeof startBreakdown>[2], env);
}
