import { type ConnectRouter, createClient, type Transport } from "@connectrpc/connect";
import { MetricsService } from "@junction/contracts/metrics/v1/metrics_service_pb";
import {
  type MetricsSource,
  OVERVIEW_METRICS,
  type OverviewStore,
  OverviewSampler,
  openOverviewStore,
} from "@junction/gateway";
import type { Database } from "bun:sqlite";
import {
  type CommonConfig,
  type Logger,
  type MetricsRegistry,
  type MetricsSample,
  sampleRegistry,
  systemClock,
} from "@junction/platform";

/** Names asked in one call, at most: the overview asks for six. */
const MAX_NAMES = 64;
/** A process that does not answer within this is skipped for one reading. */
const SAMPLE_TIMEOUT_MS = 5_000;

/**
 * Serves MetricsService beside a process's own service: the gateway's overview sampler reads this
 * process's counters over the h2c address it already calls (the admin port may be off, token-gated,
 * or at an address the gateway does not know).
 */
export function serveMetricsSamples(router: ConnectRouter, registry: MetricsRegistry): void {
  router.service(MetricsService, {
    sampleMetrics(req) {
      const sample = sampleRegistry(registry, req.names.slice(0, MAX_NAMES));
      return {
        metrics: [
          ...Object.entries(sample.counters).map(([name, counters]) => ({ name, counters })),
          ...Object.entries(sample.histograms).map(([name, histograms]) => ({ name, histograms })),
        ],
      };
    },
  });
}

/** A service process's counters, read over its h2c transport (by every gateway: shared). */
export function remoteMetricsSource(name: string, transport: Transport, names: readonly string[]): MetricsSource {
  const client = createClient(MetricsService, transport);
  return {
    name,
    shared: true,
    async sample(): Promise<MetricsSample> {
      const res = await client.sampleMetrics({ names: [...names] }, { timeoutMs: SAMPLE_TIMEOUT_MS });
      const sample: MetricsSample = { counters: {}, histograms: {} };
      for (const m of res.metrics) {
        if (m.counters.length > 0)
          sample.counters[m.name] = m.counters.map((c) => ({ labels: c.labels, value: c.value }));
        if (m.histograms.length > 0) {
          sample.histograms[m.name] = m.histograms.map((h) => ({
            labels: h.labels,
            bounds: h.bounds,
            counts: h.counts,
            count: h.count,
          }));
        }
      }
      return sample;
    },
  };
}

/**
 * The distributed gateway's overview: its buckets in the gateway's SQLite file in the data dir (`db`,
 * opened by the process, which closes it), or MongoDB (with JUNCTION_STORE=mongodb), sampled from this
 * process's registry (the proxy engine runs here) and from each peer service process over RPC. Gateways
 * sharing the store add to the same buckets: each its own counts, and the services' counts only the one
 * holding the store's sampling lease (see OverviewSampler).
 */
export async function distributedOverview(options: {
  /** JUNCTION_OVERVIEW_SAMPLE_MS, read with the gateway's settings. */
  sampleMs: number;
  common: Pick<CommonConfig, "store" | "mongodbUrl" | "mongodbDatabase">;
  db: () => Database;
  metrics: MetricsRegistry;
  peers: readonly string[];
  transport: (peer: string) => Transport;
  logger: Logger;
}): Promise<{ store: OverviewStore; sampler: OverviewSampler; close(): Promise<void> }> {
  const opened = await openOverviewStore(options.common, options.db);
  const store = opened.store;
  const sources: MetricsSource[] = [
    { name: "gateway", sample: async () => sampleRegistry(options.metrics, OVERVIEW_METRICS) },
    ...options.peers.map((peer) => remoteMetricsSource(peer, options.transport(peer), OVERVIEW_METRICS)),
  ];
  const sampler = new OverviewSampler(store, sources, systemClock, options.logger, options.sampleMs);
  return {
    store,
    sampler,
    async close() {
      await sampler.stop();
      await opened.close();
    },
  };
}
