import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadCommonConfig } from "@junction/platform";
import { loadProcessSettings } from "./process-settings.ts";

type Env = Record<string, string | undefined>;

export interface RunningSandbox {
  url: string;
  credentialsFile: string;
  stop(): Promise<void>;
}

/** Where the sandbox writes its test credentials: JUNCTION_TEST_CREDENTIALS_FILE, or the data dir's file. */
export function sandboxCredentialsFile(env: Env): string {
  return env.JUNCTION_TEST_CREDENTIALS_FILE || join(loadCommonConfig(env).dataDir, "sandbox-credentials.json");
}

/**
 * `junction serve sandbox`: the sandbox upstream as its own process (the distributed topology), on
 * JUNCTION_SANDBOX_UPSTREAM_PORT. Its test credentials go to a file in the JUNCTION_TEST_CREDENTIALS_FILE
 * format, which the connection service reads; the client secret in it is kept across restarts.
 */
export async function serveSandbox(env: Env = process.env): Promise<RunningSandbox> {
  const file = sandboxCredentialsFile(env);
  const settings = loadProcessSettings(env);
  const { startSandboxUpstream } = await import("@junction/sandbox-upstream");
  const sandbox = await startSandboxUpstream({
    port: settings.sandboxUpstreamPort,
    clientSecret: previousClientSecret(file),
  });
  const credentials: Record<string, Record<string, string>> = {};
  for (const [provider, c] of Object.entries(sandbox.testCredentials)) {
    credentials[provider] = {
      client_id: c.clientId,
      client_secret: c.clientSecret,
      authorization_url: c.authorizationUrl,
      token_url: c.tokenUrl,
      base_url: c.baseUrl,
    };
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return { url: sandbox.url, credentialsFile: file, stop: () => sandbox.stop() };
}

function previousClientSecret(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, { client_secret?: unknown }>;
    const secret = Object.values(parsed)[0]?.client_secret;
    return typeof secret === "string" && secret !== "" ? secret : undefined;
  } catch {
    return undefined;
  }
}
