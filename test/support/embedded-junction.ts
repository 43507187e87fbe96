import { type EmbeddedJunction, startEmbedded } from "@junction/cli";
import { type Clock, createLogger, memoryLogger } from "@junction/platform";
import { tempDir } from "./temp-dir.ts";

export const TEST_SECRET_KEY = "jct_sk_test_0123456789abcdefghijklmnop";

export interface TestJunction extends EmbeddedJunction {
  dataDir: string;
  /** Every structured log line written so far. */
  logLines: string[];
  /** Calls the gateway with the test secret key (override with headers.authorization). */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Stops Junction and removes its data dir (unless keepData). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Starts the embedded default on a free port with a temporary data dir. */
export async function startTestJunction(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    clock?: Clock;
    secretKey?: string | null;
    /** "warn": only warnings and errors are kept (a load test's requests would fill `logLines`). */
    logLevel?: "debug" | "warn";
    /** A test resolver for the outbound address policy (names resolved to chosen addresses). */
    lookup?: (hostname: string) => Promise<string[]>;
    /** The fetch under the policy that reads MCP clients' metadata documents (to trust a local CA). */
    mcpClientMetadataFetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
  } = {},
): Promise<TestJunction> {
  const dir = options.dataDir ? { path: options.dataDir, remove: () => {} } : tempDir();
  const logger = options.logLevel === "warn" ? warnLogger() : memoryLogger();
  const secretKey = options.secretKey === null ? undefined : (options.secretKey ?? TEST_SECRET_KEY);
  const env: Record<string, string | undefined> = {
    JUNCTION_DATA_DIR: dir.path,
    JUNCTION_SECRET_KEY: secretKey,
    JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
    // The fake upstreams listen on 127.0.0.1: integrations may point at them (JUNCTION_ALLOWED_PRIVATE_HOSTS).
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1,localhost",
    ...options.env,
  };
  const junction = await startEmbedded({
    env,
    port: 0,
    hostname: "127.0.0.1",
    logger,
    clock: options.clock,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.mcpClientMetadataFetch ? { mcpClientMetadataFetch: options.mcpClientMetadataFetch } : {}),
  });
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = {
      method,
      headers: {
        ...(secretKey ? { authorization: `Bearer ${secretKey}` } : {}),
        ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
    };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${junction.url}${path}`, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return Object.assign(junction, {
    dataDir: dir.path,
    logLines: logger.lines,
    api,
    async close(opts: { keepData?: boolean } = {}) {
      await junction.stop();
      if (!opts.keepData) dir.remove();
    },
  });
}

/** A memory logger that keeps warnings and errors only. */
function warnLogger() {
  const lines: string[] = [];
  return Object.assign(createLogger({ level: "warn", sink: (l) => lines.push(l) }), { lines });
}

export { createLogger };
