import { mkdirSync, renameSync, writeFileSync } from "node:fs";
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

/** Where the sandbox upstream keeps its client secret, port, users and issued tokens across restarts. */
export function sandboxStateFile(env: Env): string {
  return join(loadCommonConfig(env).dataDir, "sandbox-upstream.json");
}

/**
 * `junction serve sandbox`: the sandbox upstream as its own process (the distributed topology), on
 * JUNCTION_SANDBOX_UPSTREAM_PORT. Its test credentials go to a file in the JUNCTION_TEST_CREDENTIALS_FILE
 * format, which the connection service reads; its state (client secret included) is kept in the data dir.
 */
export async function serveSandbox(env: Env = process.env): Promise<RunningSandbox> {
  const file = sandboxCredentialsFile(env);
  const settings = loadProcessSettings(env);
  const { startSandboxUpstream } = await import("@junction/sandbox-upstream");
  const sandbox = await startSandboxUpstream({
    port: settings.sandboxUpstreamPort,
    stateFile: sandboxStateFile(env),
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
