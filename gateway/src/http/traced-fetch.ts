import type { Tracing } from "@junction/platform";
import type { Router } from "../router.ts";
import { plainRequestTarget } from "./request-target.ts";

/** Each request in a server span named after its route (never its path: it holds ids), continuing its `traceparent`. */
export function tracedFetch(
  fetch: (req: Request) => Promise<Response>,
  router: Router,
  tracing: Tracing,
): (req: Request) => Promise<Response> {
  return (req) => {
    const { method } = req;
    const target = plainRequestTarget(req.url) ?? URL.parse(req.url);
    const found = target ? router.find(method, target.pathname) : undefined;
    const route = found && !Array.isArray(found) ? found.pattern : "unmatched";
    const traceparent = req.headers.get("traceparent");
    return tracing.span(
      `${method} ${route}`,
      { "http.request.method": method, "http.route": route },
      async (span) => {
        const res = await fetch(req);
        span.setAttribute("http.response.status_code", res.status);
        return res;
      },
      traceparent ? { parent: { traceparent }, kind: "server" } : { kind: "server" },
    );
  };
}
