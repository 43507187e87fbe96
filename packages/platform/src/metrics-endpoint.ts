import { timingSafeEqual } from "node:crypto";
import { METRICS_CONTENT_TYPE, type MetricsRegistry } from "./metrics.ts";

/**
 * GET /metrics: the registry's text to a scraper holding the metrics token (Bearer), never a secret
 * key. Without a configured token metrics are off (opt-in): 404 `metrics_off`, saying how to turn them on.
 */
export async function metricsResponse(
  registry: MetricsRegistry,
  token: string | undefined,
  authorization: string | null | undefined,
): Promise<Response> {
  if (!token) {
    return errorJson(
      404,
      "metrics_off",
      "Metrics are off: they are served only when the operator sets JUNCTION_METRICS_TOKEN, and then only to " +
        "Authorization: Bearer <that token> (a secret key is not enough). See docs/observability.md.",
    );
  }
  if (!bearerMatches(authorization, token)) {
    return errorJson(
      401,
      "metrics_token_required",
      "A metrics token is required: Authorization: Bearer <JUNCTION_METRICS_TOKEN> (a secret key is refused).",
      { "www-authenticate": 'Bearer realm="metrics"' },
    );
  }
  return new Response(await registry.render(), { headers: { "content-type": METRICS_CONTENT_TYPE } });
}

/** Junction's one error body (packages/public-api's shape), written here because the admin ports use it too. */
function errorJson(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

function bearerMatches(authorization: string | null | undefined, token: string): boolean {
  if (!authorization?.startsWith("Bearer ")) return false;
  const given = Buffer.from(authorization.slice(7).trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
