import type { Handler, Route } from "../router.ts";
import { toErrorResponse } from "./error-response.ts";

/**
 * Answers any page may read, as Nango's public API does (`origin: *`): only for routes a browser calls
 * with a connect session token, never with a secret key or a cookie, so no credential rides along.
 */
const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "x-request-id",
};

/** The handler's answers, its errors included, readable by the page that called it. */
export function withCors(handler: Handler): Handler {
  return async (ctx) => {
    let res: Response;
    try {
      res = await handler(ctx);
    } catch (err) {
      res = toErrorResponse(err, ctx.logger, ctx.requestId);
    }
    for (const [name, value] of Object.entries(CORS_HEADERS)) res.headers.set(name, value);
    return res;
  };
}

/** The browser's preflight (OPTIONS) for `pattern`: which methods and headers a page may send. */
export function preflightRoute(pattern: string, methods: readonly string[]): Route {
  return {
    method: "OPTIONS",
    pattern,
    auth: false,
    handler: async () =>
      new Response(null, {
        status: 204,
        headers: {
          ...CORS_HEADERS,
          "access-control-allow-methods": methods.join(", "),
          "access-control-allow-headers": "authorization, content-type",
          "access-control-max-age": "600",
        },
      }),
    doc: {
      summary: "CORS preflight",
      description: `What a page on another origin may send to ${pattern} (any origin: the route takes a connect session token, never a secret key or cookie).`,
      tags: ["Connect"],
      responses: { 204: { description: "The CORS headers; no body." } },
      errors: [],
    },
  };
}
