import { loadConfig } from "@junction/platform";
import { z } from "zod";

const ms = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);

/**
 * The proxy's call policy, read from JUNCTION_PROXY_* (e.g. JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS). The
 * service sends it with every ResolveUpstream answer, so the gateway that runs the calls needs none.
 */
export const proxyConfigSchema = z.object({
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
  /**
   * Longest reuse of one answer by the gateway. Bounds how long a deleted connection or a changed
   * integration keeps being served from the gateway's cache, as the key cache bounds revocation.
   */
  resolveCacheMs: ms(5_000, 300_000),
});

export type ProxyConfig = z.infer<typeof proxyConfigSchema>;

/** Loads the proxy's policy from the environment; fails fast naming the variable that is wrong. */
export function loadProxyConfig(env: Record<string, string | undefined> = process.env): ProxyConfig {
  return loadConfig(proxyConfigSchema, { prefix: "JUNCTION_PROXY_", env });
}

/** The defaults, for callers that configure nothing. */
export const DEFAULT_PROXY_CONFIG: ProxyConfig = proxyConfigSchema.parse({});
