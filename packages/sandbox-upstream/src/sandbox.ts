import { randomBytes } from "node:crypto";
import { type FakeUpstream, startFakeUpstream } from "./index.ts";

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
 * for the calendar and mail templates pointing at it. For trying Junction with no upstream account.
 */
export async function startSandboxUpstream(
  options: { port?: number; now?: () => number } = {},
): Promise<SandboxUpstream> {
  const client = { clientId: "junction-sandbox.apps.local", clientSecret: randomBytes(24).toString("base64url") };
  const fake = await startFakeUpstream({
    port: options.port ?? 0,
    now: options.now,
    interactive: true,
    clients: [client],
  });
  const credential = (baseUrl: string): SandboxCredential => ({
    ...client,
    authorizationUrl: fake.endpoints.authorizationUrl,
    tokenUrl: fake.endpoints.tokenUrl,
    baseUrl,
    sandbox: true,
  });
  return {
    url: fake.url,
    fake,
    testCredentials: {
      "google-calendar": credential(fake.endpoints.calendarBaseUrl),
      "google-mail": credential(fake.endpoints.mailBaseUrl),
    },
    stop: () => fake.stop(),
  };
}
