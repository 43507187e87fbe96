import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject } from "../http/read-json.ts";
import { dataOf, isoOrNull } from "../openapi/route-doc.ts";
import { overviewSeries, PERIODS } from "../overview/overview-series.ts";
import type { OverviewStore } from "../overview/overview-store.ts";
import { overviewTrouble } from "../overview/overview-trouble.ts";
import type { Route } from "../router.ts";

const query = z.object({ period: z.enum(PERIODS).default("hour") }).strict();

const counts = z.array(z.number());
const lines = (labels: readonly string[]) => z.object(Object.fromEntries(labels.map((l) => [l, counts])));
const totals = (labels: readonly string[]) => z.object(Object.fromEntries(labels.map((l) => [l, z.number()])));
const STATUS = ["2xx", "3xx", "4xx", "5xx", "error"];
const NOTIFICATIONS = ["received", "matched", "unmatched", "forwarded", "refused", "dropped", "duplicate"];
const DELIVERIES = ["succeeded", "failed", "exhausted"];
const KINDS = ["sync", "action", "other"];
const ms = z.number().nullable();
const troubleCounts = {
  refresh_failures: z.number().int(),
  failing_deliveries: z.number().int(),
  failed_runs: z.number().int(),
  failing_channels: z.number().int(),
};

const overviewAnswer = z
  .object({
    period: z.enum(PERIODS),
    step_seconds: z.number().int().describe("The width of one point of the series."),
    from: isoOrNull,
    to: isoOrNull,
    times: z.array(z.string()).describe("Each point's start, oldest first; every series has one value per point."),
    proxy_calls: lines(STATUS).describe("Proxy calls by the upstream's final status class (error: no answer)."),
    proxy_latency_ms: z.object({ p50: z.array(ms), p95: z.array(ms) }).describe("Upstream time, null when no call."),
    notifications: lines(NOTIFICATIONS),
    deliveries: lines(DELIVERIES).describe("Webhook delivery rounds by outcome."),
    runs: z.object(Object.fromEntries(KINDS.map((k) => [k, z.object({ succeeded: counts, failed: counts })]))),
    refresh_failures: counts,
    totals: z.object({
      proxy_calls: totals(STATUS),
      proxy_latency_ms: z.object({ p50: ms, p95: ms }),
      notifications: totals(NOTIFICATIONS),
      deliveries: totals(DELIVERIES),
      runs: z.object(
        Object.fromEntries(KINDS.map((k) => [k, z.object({ succeeded: z.number(), failed: z.number() })])),
      ),
      refresh_failures: z.number(),
    }),
    trouble: z.object({
      connections: z.array(
        z.object({
          provider_config_key: z.string(),
          connection_id: z.string(),
          ...troubleCounts,
          last_error: z.string(),
        }),
      ),
      integrations: z.array(
        z.object({ provider_config_key: z.string(), connections: z.number().int(), ...troubleCounts }),
      ),
      unavailable: z.array(z.string()).describe("Services that did not answer: their part of the lists is missing."),
    }),
  })
  .meta({ id: "Overview" });

/** GET /overview: the dashboard's charts (the aggregates Junction keeps) and what is in trouble under them. */
export function overviewRoutes(deps: { store: OverviewStore; now: () => number }): Route[] {
  return [
    {
      method: "GET",
      pattern: "/overview",
      handler: async ({ clients, url }) => {
        const q = parseWith(query, queryObject(url), "invalid_query_params", "query");
        const series = await overviewSeries(deps.store, q.period, deps.now());
        const trouble = await overviewTrouble(clients, Date.parse(series.from));
        return json({ data: { ...series, trouble } });
      },
      doc: {
        summary: "Overview of the last hour, day or week",
        description:
          "Proxy calls by status and latency (p50/p95), notifications, webhook deliveries, script runs and token refresh failures over the period, from the counters Junction samples itself; then the connections and integrations in trouble.",
        tags: ["Overview"],
        query,
        responses: { 200: dataOf(overviewAnswer) },
        errors: [],
      },
    },
  ];
}
