import { timingSafeEqual } from "node:crypto";
import { METRICS_CONTENT_TYPE, type MetricsRegistry } from "./metrics.ts";

/**
 * GET /metrics: the registry's text to a scraper holding the metrics token (Bearer), never a secret
 * key. Without a configured token the endpoint does not exist (404): metrics are opt-in.
 */
export async function metricsResponse(
  registry: MetricsRegistry,
  token: string | undefined,
  authorization: string | null | undefined,
): Promise<Response> {
  if (!token) return new Response("Not found.\n", { status: 404 });
  if (!bearerMatches(authorization, token)) {
    return new Response("A metrics token is required (Authorization: Bearer <JUNCTION_METRICS_TOKEN>).\n", {
      status: 401,
      headers: { "www-authenticate": 'Bearer realm="metrics"' },
    });
  }
  return new Response(await registry.render(), { headers: { "content-type": METRICS_CONTENT_TYPE } });
}

function bearerMatches(authorization: string | null | undefined, token: string): boolean {
  if (!authorization?.startsWith("Bearer ")) return false;
  const given = Buffer.from(authorization.slice(7).trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
