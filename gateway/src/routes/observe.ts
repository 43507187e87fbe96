import { type MetricsRegistry, metricsResponse, type ReadinessCheck, readyResponse } from "@junction/platform";
import { z } from "zod";
import type { Route } from "../router.ts";

/** What /metrics and /ready serve: the process's registry, the scraper's token, what the process needs. */
export interface ObserveOptions {
  metrics: MetricsRegistry;
  /** JUNCTION_METRICS_TOKEN; without it /metrics answers 404. */
  metricsToken: string | undefined;
  readiness: readonly ReadinessCheck[];
}

const readySchema = z.object({
  status: z.enum(["ready", "not_ready"]),
  checked: z.array(z.string()),
  missing: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
});

/** GET /metrics (the metrics token, never a secret key) and GET /ready (no auth). */
export function observeRoutes(options: ObserveOptions): Route[] {
  return [
    {
      method: "GET",
      pattern: "/metrics",
      auth: false,
      handler: async ({ headers }) => {
        const authorization = typeof headers.authorization === "string" ? headers.authorization : undefined;
        return metricsResponse(options.metrics, options.metricsToken, authorization);
      },
      doc: {
        summary: "Prometheus metrics",
        description:
          "The process's metrics in the Prometheus text format, for `Authorization: Bearer <JUNCTION_METRICS_TOKEN>` " +
          "(a secret key is refused: 401 `metrics_token_required`). 404 `metrics_off` when no metrics token is configured. " +
          "See docs/observability.md.",
        tags: ["Meta"],
        responses: {
          200: { description: "The exposition text (version 0.0.4).", contentType: "text/plain; version=0.0.4" },
        },
        errors: ["metrics_off", "metrics_token_required"],
      },
    },
    {
      method: "GET",
      pattern: "/ready",
      auth: false,
      handler: () => readyResponse(options.readiness),
      doc: {
        summary: "Readiness",
        description:
          "200 when the store, the bus and every service this process calls answer; 503 with `missing` naming " +
          "what does not (and why) otherwise. No secret key needed. /health stays liveness.",
        tags: ["Meta"],
        responses: {
          200: readySchema,
          503: { description: "Not ready: `missing` names what does not answer.", contentType: "application/json" },
        },
        errors: [],
      },
    },
  ];
}
