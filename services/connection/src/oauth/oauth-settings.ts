import { existsSync, readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "@junction/platform";
import type { TestCredential } from "@junction/wiring";
import { z } from "zod";

export type { TestCredential };

/** The connection service's OAuth settings; every duration is on the injected clock except the timeout. */
export interface OAuthSettings {
  /** An access token expiring within this is refreshed before use. */
  refreshMarginMs: number;
  /** Real-time limit for each call to the token endpoint and the primary-calendar lookup. */
  tokenRequestTimeoutMs: number;
  /** Lifetime of a connect session. */
  connectSessionTtlMs: number;
  /** Lifetime of an authorization attempt (its state and PKCE verifier). */
  authorizationStateTtlMs: number;
  /** Time between two sweeps for authorizations never come back (recorded once their state expired). */
  abandonedSweepIntervalMs: number;
  /** Lifetime of a refresh lease; a holder that dies blocks others at most this long. */
  refreshLeaseTtlMs: number;
  /** After a refusal by the token endpoint (invalid_grant...), calls fail fast this long. */
  refreshFailureCooldownMs: number;
  /** After a timeout, unreachable or garbled token endpoint, calls fail fast this long. */
  refreshTransientCooldownMs: number;
  /** Test credentials by provider template name. */
  testCredentials: Record<string, TestCredential>;
}

const MINUTE = 60_000;

export const DEFAULT_OAUTH_SETTINGS: OAuthSettings = {
  refreshMarginMs: 5 * MINUTE,
  tokenRequestTimeoutMs: 10_000,
  connectSessionTtlMs: 30 * MINUTE,
  authorizationStateTtlMs: 10 * MINUTE,
  abandonedSweepIntervalMs: MINUTE,
  refreshLeaseTtlMs: 30_000,
  refreshFailureCooldownMs: 5 * MINUTE,
  refreshTransientCooldownMs: 30_000,
  testCredentials: {},
};

const ms = z.coerce.number().int().positive();
const schema = z.object({
  tokenRefreshMarginMs: ms.default(DEFAULT_OAUTH_SETTINGS.refreshMarginMs),
  tokenRequestTimeoutMs: ms.default(DEFAULT_OAUTH_SETTINGS.tokenRequestTimeoutMs),
  connectSessionTtlMs: ms.default(DEFAULT_OAUTH_SETTINGS.connectSessionTtlMs),
  oauthStateTtlMs: ms.default(DEFAULT_OAUTH_SETTINGS.authorizationStateTtlMs),
  oauthSweepIntervalMs: ms.default(DEFAULT_OAUTH_SETTINGS.abandonedSweepIntervalMs),
  refreshLeaseTtlMs: ms.default(DEFAULT_OAUTH_SETTINGS.refreshLeaseTtlMs),
  refreshFailureCooldownMs: ms.default(DEFAULT_OAUTH_SETTINGS.refreshFailureCooldownMs),
  refreshTransientCooldownMs: ms.default(DEFAULT_OAUTH_SETTINGS.refreshTransientCooldownMs),
  testCredentialsFile: z.string().optional(),
});

const url = z.string().url();
const testCredentialSchema = z
  .object({
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    authorization_url: url.optional(),
    token_url: url.optional(),
    base_url: url.optional(),
  })
  .strict();

const PER_PROVIDER_ENV = /^JUNCTION_TEST_CREDENTIALS_([A-Z0-9_]+)$/;

/**
 * Loads the OAuth settings from JUNCTION_* variables. Test credentials come from the JSON file named by
 * JUNCTION_TEST_CREDENTIALS_FILE ({"<provider>": {client_id, client_secret, ...}}), then from
 * JUNCTION_TEST_CREDENTIALS_<PROVIDER> (one JSON object; ACME_CALENDAR for acme-calendar), then
 * `fallback` (the sandbox upstream) for providers neither names.
 */
export function loadOAuthSettings(
  env: Record<string, string | undefined> = process.env,
  fallback: Record<string, TestCredential> = {},
): OAuthSettings {
  const cfg = loadConfig(schema, { prefix: "JUNCTION_", env });
  if (cfg.refreshLeaseTtlMs <= cfg.tokenRequestTimeoutMs) {
    // A live holder must never lose its lease while its token request may still be running.
    throw new ConfigError(
      "JUNCTION_REFRESH_LEASE_TTL_MS must be longer than JUNCTION_TOKEN_REQUEST_TIMEOUT_MS, or two processes could refresh at once",
    );
  }
  const configured: Record<string, TestCredential> = {};
  if (cfg.testCredentialsFile) {
    if (!existsSync(cfg.testCredentialsFile)) {
      throw new ConfigError(`JUNCTION_TEST_CREDENTIALS_FILE: no file at ${cfg.testCredentialsFile}`);
    }
    const parsed = parseJson(readFileSync(cfg.testCredentialsFile, "utf8"), "JUNCTION_TEST_CREDENTIALS_FILE");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError("JUNCTION_TEST_CREDENTIALS_FILE: expected a JSON object keyed by provider name");
    }
    for (const [provider, value] of Object.entries(parsed)) {
      configured[provider] = toTestCredential(value, `JUNCTION_TEST_CREDENTIALS_FILE: ${provider}`);
    }
  }
  for (const [name, value] of Object.entries(env)) {
    const m = PER_PROVIDER_ENV.exec(name);
    if (!m || name === "JUNCTION_TEST_CREDENTIALS_FILE" || !value) continue;
    const provider = (m[1] as string).toLowerCase().replace(/_/g, "-");
    configured[provider] = toTestCredential(parseJson(value, name), name);
  }
  return {
    refreshMarginMs: cfg.tokenRefreshMarginMs,
    tokenRequestTimeoutMs: cfg.tokenRequestTimeoutMs,
    connectSessionTtlMs: cfg.connectSessionTtlMs,
    authorizationStateTtlMs: cfg.oauthStateTtlMs,
    abandonedSweepIntervalMs: cfg.oauthSweepIntervalMs,
    refreshLeaseTtlMs: cfg.refreshLeaseTtlMs,
    refreshFailureCooldownMs: cfg.refreshFailureCooldownMs,
    refreshTransientCooldownMs: cfg.refreshTransientCooldownMs,
    testCredentials: { ...fallback, ...configured },
  };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${where}: not valid JSON (${(e as Error).message})`);
  }
}

function toTestCredential(value: unknown, where: string): TestCredential {
  const parsed = testCredentialSchema.safeParse(value);
  if (!parsed.success) {
    // Never echo the value: it holds a client secret.
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(value)"} ${i.message}`).join("; ");
    throw new ConfigError(
      `${where}: expected {client_id, client_secret, authorization_url?, token_url?, base_url?}: ${problems}`,
    );
  }
  const v = parsed.data;
  return {
    clientId: v.client_id,
    clientSecret: v.client_secret,
    ...(v.authorization_url ? { authorizationUrl: v.authorization_url.replace(/\/+$/, "") } : {}),
    ...(v.token_url ? { tokenUrl: v.token_url.replace(/\/+$/, "") } : {}),
    ...(v.base_url ? { baseUrl: v.base_url.replace(/\/+$/, "") } : {}),
  };
}
