import { loadConfig } from "@junction/platform";
import { z } from "zod";

const ms = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);

/**
 * How the engine calls the upstream, read from JUNCTION_PROXY_* (e.g. JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS)
 * by each process that runs the engine (the gateway's /proxy and the scripts service's `nango.proxy`).
 */
export const proxySettingsSchema = z.object({
  /** Time allowed for one attempt until the upstream's response headers arrive. */
  upstreamTimeoutMs: z.coerce.number().int().min(1).max(3_600_000).default(60_000),
  /** Retries of GET, HEAD, OPTIONS, PUT and DELETE when the caller sends no `Retries`. */
  defaultRetries: z.coerce.number().int().min(0).max(10).default(2),
  /** Upper bound of the caller's `Retries`. */
  maxRetries: z.coerce.number().int().min(0).max(20).default(10),
  /** First backoff delay; doubled on each retry, with full jitter. */
  retryBaseDelayMs: ms(250, 60_000),
  /** Upper bound of one backoff delay. */
  retryMaxDelayMs: ms(10_000, 600_000),
  /** Upper bound of a wait the upstream asks for with `Retry-After`. */
  maxRetryAfterMs: ms(30_000, 600_000),
});

export type ProxySettings = z.infer<typeof proxySettingsSchema>;

/** Loads the engine's settings from the environment; fails fast naming the variable that is wrong. */
export function loadProxySettings(env: Record<string, string | undefined> = process.env): ProxySettings {
  return loadConfig(proxySettingsSchema, { prefix: "JUNCTION_PROXY_", env });
}

/** The defaults, for callers that configure nothing. */
export const DEFAULT_PROXY_SETTINGS: ProxySettings = proxySettingsSchema.parse({});
