import { createHash } from "node:crypto";
import { authenticate } from "./bearer-auth.ts";
import { blobStream } from "../../fake-kit/blob-pattern.ts";
import { delay } from "../../fake-kit/delay.ts";
import { googleApiError } from "./google-errors.ts";
import { headersObject, type RequestContext, type RouteHandler } from "../../fake-kit/router.ts";
import type { GoogleFakeState } from "./state.ts";

/** Open by default: these exist to observe the proxy, not to test auth (unless `requireAuthOnEcho`). */
function guarded(handler: RouteHandler<GoogleFakeState>): RouteHandler<GoogleFakeState> {
  return (ctx, up) => {
    if (up.options.requireAuthOnEcho) {
      const token = authenticate(ctx.request, up);
      if (token instanceof Response) return token;
    }
    return handler(ctx, up);
  };
}

/** ANY /echo/*: what arrived, with the path and query byte-for-byte as on the request line. */
export const echoRoute = guarded(async (ctx) => {
  const body = await digestStream(ctx.body);
  return Response.json({
    method: ctx.method,
    path: ctx.rawPath,
    query: ctx.rawQuery,
    headers: headersObject(ctx.request.headers),
    rawHeaders: ctx.rawHeaders,
    bodyLength: body.bytes,
    bodySha256: body.sha256,
  });
});

/** GET /blob/{bytes}: that many bytes of `blobChunks`, generated as the client reads. */
export const blobRoute = guarded((ctx) => {
  const bytes = Number(ctx.params[0]);
  if (!Number.isSafeInteger(bytes))
    return googleApiError(400, "Invalid size", { reason: "invalid", message: "Invalid size" });
  return new Response(blobStream(bytes), {
    headers: { "content-type": "application/octet-stream", "content-length": String(bytes) },
  });
});

/** POST|PUT /blob/sink: hashes the upload as it streams in. */
export const blobSinkRoute = guarded(async (ctx) => {
  const body = await digestStream(ctx.body);
  return Response.json({ bytes: body.bytes, sha256: body.sha256 });
});

/** ANY /flaky/{n}: 503 for the first n requests per `x-flaky-key` (and n), then 200. `?retryAfter=s` adds Retry-After. */
export const flakyRoute = guarded((ctx, up) => {
  const failures = Number(ctx.params[0]);
  const key = `${failures}\n${ctx.request.headers.get("x-flaky-key") ?? ""}`;
  const attempt = (up.flakyAttempts.get(key) ?? 0) + 1;
  up.flakyAttempts.set(key, attempt);
  if (attempt <= failures) {
    const message = `Flaky failure ${attempt} of ${failures}`;
    return withRetryAfter(googleApiError(503, message, { reason: "backendError", message }), ctx);
  }
  return Response.json({ ok: true, attempt });
});

/** ANY /status/{code}: answers with that status (Google-shaped error body from 400 up). */
export const statusRoute = guarded((ctx) => {
  const status = Number(ctx.params[0]);
  if (status < 200 || status > 599)
    return googleApiError(400, "Status must be 200-599", { reason: "invalid", message: "Status must be 200-599" });
  if (status === 204 || status === 205 || status === 304) return withRetryAfter(new Response(null, { status }), ctx);
  const message = `Fake status ${status}`;
  const response =
    status >= 400
      ? googleApiError(status, message, { reason: "fakeStatus", message })
      : Response.json({ status }, { status });
  return withRetryAfter(response, ctx);
});

/** ANY /slow/{ms}: answers after `ms` of real time (sooner if the client goes away). */
export const slowRoute = guarded(async (ctx) => {
  const ms = Number(ctx.params[0]);
  await delay(ms, ctx.signal);
  return Response.json({ delayedMs: ms });
});

function withRetryAfter(response: Response, ctx: RequestContext): Response {
  const retryAfter = ctx.query.get("retryAfter");
  if (retryAfter) response.headers.set("retry-after", retryAfter);
  return response;
}

async function digestStream(body: ReadableStream<Uint8Array>): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const reader = body.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    hash.update(next.value);
    bytes += next.value.byteLength;
  }
  return { bytes, sha256: hash.digest("hex") };
}
