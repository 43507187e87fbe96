/** GET /overview's answer, as the overview page reads it. */
export type Counts = Record<string, number[]>;

export interface TroubleCounts {
  refresh_failures: number;
  failing_deliveries: number;
  failed_runs: number;
  failing_channels: number;
}

export interface Overview {
  period: "hour" | "day" | "week";
  step_seconds: number;
  times: string[];
  proxy_calls: Counts;
  proxy_latency_ms: { p50: (number | null)[]; p95: (number | null)[] };
  notifications: Counts;
  deliveries: Counts;
  runs: Record<"sync" | "action" | "other", { succeeded: number[]; failed: number[] }>;
  refresh_failures: number[];
  totals: {
    proxy_calls: Record<string, number>;
    proxy_latency_ms: { p50: number | null; p95: number | null };
    notifications: Record<string, number>;
    deliveries: Record<string, number>;
    runs: Record<string, { succeeded: number; failed: number }>;
    refresh_failures: number;
  };
  trouble: {
    connections: (TroubleCounts & { provider_config_key: string; connection_id: string; last_error: string })[];
    integrations: (TroubleCounts & { provider_config_key: string; connections: number })[];
    unavailable: string[];
  };
}
