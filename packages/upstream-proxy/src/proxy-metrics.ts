import type { Counter, Histogram, MetricsRegistry } from "@junction/platform";

/** The proxy engine's metrics: labelled by integration (its unique key, never a connection or token). */
export interface ProxyMetrics {
  /** Calls by integration and the upstream's final status ("error" when none came back). */
  calls: Counter;
  /** Time until an upstream attempt's response headers, by integration. */
  upstreamSeconds: Histogram;
  /** Attempts made again, by integration and why ("status" or "network"). */
  retries: Counter;
  /** Token refreshes asked after an upstream 401, by integration. */
  refreshesAfter401: Counter;
}

/** Registers (or finds) the proxy engine's metrics in `registry`. */
export function proxyMetrics(registry: MetricsRegistry): ProxyMetrics {
  return {
    calls: registry.counter(
      "junction_proxy_calls_total",
      "Proxy calls by integration and the upstream's final status (error: no answer).",
      ["integration", "status"],
    ),
    upstreamSeconds: registry.histogram(
      "junction_proxy_upstream_seconds",
      "Time until an upstream attempt's response headers, by integration.",
      ["integration"],
    ),
    retries: registry.counter(
      "junction_proxy_retries_total",
      "Upstream attempts made again, by integration and reason (status, network).",
      ["integration", "reason"],
    ),
    refreshesAfter401: registry.counter(
      "junction_proxy_refreshes_after_401_total",
      "Token refreshes asked by the proxy after an upstream 401, by integration.",
      ["integration"],
    ),
  };
}
