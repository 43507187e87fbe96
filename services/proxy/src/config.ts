import { loadConfig } from "@junction/platform";
import { z } from "zod";

const ms = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);

/**
 * The proxy service's own settings, read from JUNCTION_PROXY_*. The timeouts and retries of the calls
 * are the engine's (loadProxySettings in @junction/upstream-proxy), read by the processes that run it.
 */
export const proxyConfigSchema = z.object({
  /**
   * Longest reuse of one answer by the gateway. Bounds how long a deleted connection or a changed
   * integration keeps being served from the gateway's cache, as the key cache bounds revocation.
   */
  resolveCacheMs: ms(5_000, 300_000),
});

export type ProxyConfig = z.infer<typeof proxyConfigSchema>;

/** Loads the proxy service's settings from the environment; fails fast naming the variable that is wrong. */
export function loadProxyConfig(env: Record<string, string | undefined> = process.env): ProxyConfig {
  return loadConfig(proxyConfigSchema, { prefix: "JUNCTION_PROXY_", env });
}

/** The defaults, for callers that configure nothing. */
export const DEFAULT_PROXY_CONFIG: ProxyConfig = proxyConfigSchema.parse({});
