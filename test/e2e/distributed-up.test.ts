import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { portVariable } from "@junction/cli/wiring/addresses";
import { SERVICE_TABLE } from "@junction/cli/wiring/service-table";
import { freePort } from "@junction/platform/testing/free-port";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

const ROOT = join(import.meta.dir, "..", "..");
const SECRET = "jct_sk_junction_up_test_key_0123456789";
const data = tempDir("junction-up-");
const pidFile = join(data.path, "junction-up.pid");
/** Every pid `junction up` reported, so that a failed test still leaves no process behind. */
const seen = new Set<number>();
let env: Record<string, string> = {};
let gatewayUrl = "";

interface PidRecord {
  supervisor: number;
  processes: Record<string, number>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped by its parent) has an empty command line.
    return !existsSync(`/proc/${pid}/cmdline`) || readFileSync(`/proc/${pid}/cmdline`, "utf8") !== "";
  } catch {
    return false;
  }
}

function readPids(): PidRecord | null {
  if (!existsSync(pidFile)) return null;
  const record = JSON.parse(readFileSync(pidFile, "utf8")) as PidRecord;
  seen.add(record.supervisor);
  for (const pid of Object.values(record.processes)) seen.add(pid);
  return record;
}

function junction(args: string[], prefix: string[] = []): { proc: Subprocess; output: () => string } {
  let out = "";
  const proc = spawn([...prefix, "bun", join(ROOT, "cli/junction.ts"), ...args], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out += new TextDecoder().decode(value);
    }
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>);
  void drain(proc.stderr as ReadableStream<Uint8Array>);
  if (proc.pid) seen.add(proc.pid);
  return { proc, output: () => out };
}

/** Starts `junction up` (in a process group of its own with `setsid`, as a terminal runs it). */
async function up(prefix: string[] = []): Promise<{ proc: Subprocess; output: () => string }> {
  const run = junction(["up"], prefix);
  await waitFor(
    "junction up to report every process running",
    () => {
      if (run.proc.exitCode !== null) throw new Error(`junction up exited ${run.proc.exitCode}:\n${run.output()}`);
      return /processes running in \d+ ms/.test(run.output());
    },
    90_000,
    50,
  ).catch((err) => {
    throw new Error(`${(err as Error).message}\n${run.output().slice(-3000)}`);
  });
  return run;
}

async function down(): Promise<string> {
  const run = junction(["down"]);
  expect(await run.proc.exited).toBe(0);
  return run.output();
}

afterAll(async () => {
  for (const pid of seen) if (alive(pid)) process.kill(pid, "SIGKILL");
  await waitFor("every process of the test to be gone", () => [...seen].every((pid) => !alive(pid)), 10_000);
  data.remove();
});

const api = (path: string) => fetch(`${gatewayUrl}${path}`, { headers: { authorization: `Bearer ${SECRET}` } });

describe("junction up and junction down", () => {
  test("start nats, the sandbox, every service of the table and the gateway; restart a killed service; stop them all", async () => {
    env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      JUNCTION_DATA_DIR: data.path,
      JUNCTION_SECRET_KEY: SECRET,
      JUNCTION_LOG_LEVEL: "warn",
      PORT: String(await freePort()),
      JUNCTION_NATS_URL: `nats://127.0.0.1:${await freePort()}`,
      JUNCTION_SANDBOX_UPSTREAM_PORT: String(await freePort()),
    };
    for (const spec of SERVICE_TABLE) env[portVariable(spec.name)] = String(await freePort());
    gatewayUrl = `http://127.0.0.1:${env.PORT}`;

    const run = await up();
    expect(run.output()).toContain("wrote "); // the env file, made from the example on first use
    expect(existsSync(join(data.path, "distributed.env"))).toBe(true);
    const first = readPids();
    expect(Object.keys(first?.processes ?? {}).sort()).toEqual(
      ["nats", "sandbox", "gateway", ...SERVICE_TABLE.map((s) => s.name)].sort(),
    );
    expect(first?.supervisor).toBe(run.proc.pid);
    expect(existsSync(join(data.path, "nats", "jetstream"))).toBe(true);

    expect((await fetch(`${gatewayUrl}/health`)).status).toBe(200);
    const created = await fetch(`${gatewayUrl}/integrations`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ unique_key: "cal", provider: "google-calendar" }),
    });
    expect(created.status).toBe(200);
    // The connection service offers the sandbox process's test credentials.
    const testMode = (await (await api("/integrations/cal/test-mode")).json()) as { data: { available: boolean } };
    expect(testMode.data.available).toBe(true);

    const killed = first?.processes.connection as number;
    process.kill(killed, "SIGKILL");
    await waitFor(
      "the killed connection service to be restarted",
      () => /connection restarted \(pid/.test(run.output()),
      30_000,
    );
    expect(run.output()).toContain("connection exited (signal SIGKILL); restarting in");
    const second = readPids();
    expect(second?.processes.connection).not.toBe(killed);
    expect(alive(second?.processes.connection as number)).toBe(true);
    expect((await api("/integrations/cal")).status).toBe(200);

    const said = await down();
    expect(said).toContain(`stopped junction up (pid ${run.proc.pid})`);
    expect(await run.proc.exited).toBe(0);
    for (const pid of [second?.supervisor, ...Object.values(second?.processes ?? {})]) {
      expect({ pid, alive: alive(pid as number) }).toEqual({ pid, alive: false });
    }
    expect(existsSync(pidFile)).toBe(false);
    expect(await fetch(`${gatewayUrl}/health`).catch(() => null)).toBeNull();
  }, 180_000);

  test("down stops the processes of a junction up that was itself killed, and nothing else", async () => {
    const run = await up();
    expect(run.output()).not.toContain("wrote "); // the env file of the first start is kept
    const record = readPids() as PidRecord;
    const bystander = spawn(["sleep", "60"], { stdout: "ignore", stderr: "ignore" });
    try {
      run.proc.kill("SIGKILL");
      await run.proc.exited;
      for (const pid of Object.values(record.processes)) expect(alive(pid)).toBe(true);

      const said = await down();
      expect(said).toContain(`and ${Object.keys(record.processes).length} of its`);
      for (const pid of Object.values(record.processes)) {
        expect({ pid, alive: alive(pid) }).toEqual({ pid, alive: false });
      }
      expect(existsSync(pidFile)).toBe(false);
      expect(alive(bystander.pid)).toBe(true);
      expect(await down()).toContain("nothing to stop");
    } finally {
      bystander.kill("SIGKILL");
    }
  }, 180_000);

  test("a port in use stops the start before anything runs: no process, no pid file, no new key", async () => {
    const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const fresh = tempDir("junction-up-busy-");
    const saved = env;
    try {
      env = { ...saved, JUNCTION_DATA_DIR: fresh.path, PORT: String(busy.port), JUNCTION_SECRET_KEY: "" };
      const run = junction(["up"]);
      expect(await run.proc.exited).toBe(1);
      expect(run.output()).toContain(`not started: port ${busy.port} (PORT) in use`);
      expect(run.output()).not.toContain("jct_sk_");
      expect(existsSync(join(fresh.path, "junction-up.pid"))).toBe(false);
      expect(existsSync(join(fresh.path, "connection.sqlite"))).toBe(false);
    } finally {
      env = saved;
      busy.stop(true);
      fresh.remove();
    }
  }, 60_000);

  test("Ctrl-C (SIGINT to the terminal's process group) stops every process, none restarted", async () => {
    const run = await up(["setsid"]);
    const record = readPids() as PidRecord;
    expect(record.supervisor).toBe(run.proc.pid);
    process.kill(-run.proc.pid, "SIGINT");
    expect(await run.proc.exited).toBe(0);
    expect(run.output()).not.toContain("restarting in");
    expect(run.output()).toContain("junction up: stopped");
    for (const pid of Object.values(record.processes)) {
      expect({ pid, alive: alive(pid) }).toEqual({ pid, alive: false });
    }
    expect(existsSync(pidFile)).toBe(false);
  }, 180_000);
});
