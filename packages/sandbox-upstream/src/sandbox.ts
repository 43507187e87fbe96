import { randomBytes } from "node:crypto";
import { type FakeUpstream, serveFakes } from "./fake-upstream.ts";

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
 * its interactive consent page, one OAuth client whose secret is made up at start, and test credentials
 * for every provider whose fake offers one (`sandboxCredentials`), pointing at it. For trying Junction with
 * no upstream account.
 */
export async function startSandboxUpstream(
  options: { port?: number; now?: () => number; clientSecret?: string } = {},
): Promise<SandboxUpstream> {
  const client = {
    clientId: "junction-sandbox.apps.local",
    // Kept by `junction serve sandbox` across restarts: the connection service read it at its own start.
    clientSecret: options.clientSecret ?? randomBytes(24).toString("base64url"),
  };
  const { fake, sandboxCredentials } = await serveFakes({
    port: options.port ?? 0,
    now: options.now,
    interactive: true,
    clients: [client],
  });
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
