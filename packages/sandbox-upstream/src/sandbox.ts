import { randomBytes } from "node:crypto";
import { type FakeUpstream, type FakesPersistence, serveFakes } from "./fake-upstream.ts";
import { readSandboxState, type SandboxState, writeSandboxState } from "./sandbox-state.ts";

/** The operator test credentials the sandbox offers, by provider template name. */
export interface SandboxCredential {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  baseUrl: string;
  sandbox: true;
}

export interface SandboxUpstream {
  url: string;
  fake: FakeUpstream;
  testCredentials: Record<string, SandboxCredential>;
  stop(): Promise<void>;
}

/**
 * The built-in sandbox upstream for `npm start` with JUNCTION_SANDBOX_UPSTREAM=true: the test fake with
 * its interactive consent page, one OAuth client, and test credentials for every provider whose fake offers
 * one (`sandboxCredentials`), pointing at it. For trying Junction with no upstream account. With `stateFile`
 * (in the data dir) it keeps its client secret, its port and its users, clients and issued tokens across
 * restarts, so that connections made through it still proxy and refresh after one.
 */
export async function startSandboxUpstream(
  options: { port?: number; now?: () => number; clientSecret?: string; stateFile?: string } = {},
): Promise<SandboxUpstream> {
  const saved: SandboxState = options.stateFile ? readSandboxState(options.stateFile) : {};
  const client = {
    clientId: "junction-sandbox.apps.local",
    clientSecret: options.clientSecret ?? saved.clientSecret ?? randomBytes(24).toString("base64url"),
  };
  let port = options.port ?? 0;
  const persist = (file: string): FakesPersistence => ({
    saved: saved.fakes,
    save: (fakes) => writeSandboxState(file, { clientSecret: client.clientSecret, port, fakes }),
  });
  const serve = (at: number) =>
    serveFakes(
      // Scopes enforced as the real APIs do: a token granted calendar.readonly cannot write an event.
      { port: at, now: options.now, interactive: true, clients: [client], enforceScopes: true },
      options.stateFile ? persist(options.stateFile) : undefined,
    );
  // The port it had, when none is asked for: the test credentials' URLs stay the same.
  const started = await (port === 0 && saved.port ? serve(saved.port).catch(() => serve(0)) : serve(port));
  const { fake, sandboxCredentials } = started;
  port = fake.port;
  const testCredentials: Record<string, SandboxCredential> = {};
  for (const [provider, urls] of Object.entries(sandboxCredentials)) {
    testCredentials[provider] = { ...client, ...urls, sandbox: true };
  }
  return {
    url: fake.url,
    fake,
    testCredentials,
    stop: () => fake.stop(),
  };
}
