import { createLogger, MetricsRegistry } from "@junction/platform";

/** A logger that drops everything: the samplers' warnings are part of what the tests provoke. */
export const quietLogger = createLogger({ sink: () => {} });

/** A process's registry with the metrics the overview reads, as the services register them. */
export function processMetrics() {
  const r = new MetricsRegistry();
  return {
    r,
    calls: r.counter("junction_proxy_calls_total", "", ["integration", "status"]),
    latency: r.histogram("junction_proxy_upstream_seconds", "", ["integration"]),
    notifications: r.counter("junction_notifications_total", "", ["integration", "outcome"]),
    rounds: r.counter("junction_delivery_rounds_total", "", ["outcome"]),
    runs: r.counter("junction_script_runs_total", "", ["kind", "outcome"]),
    refreshes: r.counter("junction_token_refreshes_total", "", ["integration", "outcome"]),
  };
}

export type ProcessMetrics = ReturnType<typeof processMetrics>;
