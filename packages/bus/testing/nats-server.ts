import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@junction/platform/testing/free-port";

/** A nats-server with JetStream, started for a test and stopped after it. */
export interface NatsServer {
  url: string;
  port: number;
  /** Where JetStream keeps its files; a restart on the same directory keeps streams and messages. */
  storeDir: string;
  /** Stops the server (SIGTERM), waits for it to exit and removes the store directory if it made it. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would; the store directory is kept. */
  kill(): void;
  /** Settles once the process has exited. */
  exited: Promise<void>;
}

export interface StartNatsServerOptions {
  /** Listen on this port instead of a free one (to restart a server where clients expect it). */
  port?: number;
  /** Use this JetStream store directory; it is then left in place by `stop`. */
  storeDir?: string;
}

const READY_LINE = "Server is ready";
const START_DEADLINE_MS = 10_000;
// A port found free may still be taken before the server binds it.
const ATTEMPTS = 3;

/** Starts `nats-server -js` on a free loopback port with its own temporary store directory. */
export async function startNatsServer(options: StartNatsServerOptions = {}): Promise<NatsServer> {
  const bin = findNatsServer();
  const ownsDir = options.storeDir === undefined;
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), "junction-nats-")));
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port === undefined ? ATTEMPTS : 1); attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await spawnServer(bin, port, storeDir, ownsDir);
    } catch (err) {
      lastError = err;
    }
  }
  if (ownsDir) await rm(storeDir, { recursive: true, force: true });
  throw lastError;
}

function findNatsServer(): string {
  const found = Bun.which("nats-server") ?? (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : null);
  if (!found) throw new Error('nats-server not found: install it with "apt-get install -y nats-server"');
  return found;
}

async function spawnServer(bin: string, port: number, storeDir: string, ownsDir: boolean): Promise<NatsServer> {
  const proc = Bun.spawn([bin, "-js", "-sd", storeDir, "-p", String(port), "-a", "127.0.0.1"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const log = readLog(proc.stderr);
  const deadline = setTimeout(() => proc.kill("SIGKILL"), START_DEADLINE_MS);
  try {
    const ready = await Promise.race([log.ready, proc.exited.then(() => false)]);
    if (!ready) {
      throw new Error(`nats-server exited before it was ready (port ${port}):\n${log.text().slice(-2000)}`);
    }
  } catch (err) {
    proc.kill("SIGKILL");
    await proc.exited;
    throw err;
  } finally {
    clearTimeout(deadline);
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      if (ownsDir) await rm(storeDir, { recursive: true, force: true });
    },
    kill() {
      proc.kill("SIGKILL");
    },
    exited: proc.exited.then(() => undefined),
  };
}

/** Reads the server's log as it comes (so the pipe never fills) and tells when it says it is ready. */
function readLog(stream: ReadableStream<Uint8Array>): { ready: Promise<boolean>; text: () => string } {
  let text = "";
  const { promise: ready, resolve } = Promise.withResolvers<boolean>();
  void (async () => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text = (text + decoder.decode(value, { stream: true })).slice(-20_000);
      if (text.includes(READY_LINE)) resolve(true);
    }
    resolve(false);
  })().catch(() => resolve(false));
  return { ready, text: () => text };
}
