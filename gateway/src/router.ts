import type { Logger } from "@junction/platform";
import type { GatewayClients } from "./clients.ts";
import type { HeaderRecord } from "./http/header-record.ts";
import type { AuthenticatedKey } from "./middleware/authenticate.ts";
import type { RouteDoc } from "./openapi/route-doc.ts";

/** What a route handler gets. */
export interface RouteContext {
  req: Request;
  /** `req.headers` as `Headers#toJSON()` gives them, read once by the gateway. */
  headers: HeaderRecord;
  url: URL;
  params: Record<string, string>;
  requestId: string;
  /** Set by the auth middleware on authenticated routes. */
  environmentId: string;
  /**
   * Set with `environmentId` when a secret key authenticated the request (for a dashboard session, the
   * key it logged in with): the key's id and name, never the key.
   */
  secretKey?: AuthenticatedKey | undefined;
  clients: GatewayClients;
  logger: Logger;
  baseUrl: string;
  /** Set when a dashboard session runs the handler (/dashboard/api/*): tokens are never returned to it. */
  dashboard?: boolean;
  /** With `dashboard`: the id of the secret key the session logged in with (never the key). */
  sessionKeyId?: string;
  /**
   * Set instead of `environmentId` when a route that accepts one (`acceptsConnectSession`) was called with a
   * connect session token as its bearer: the handler answers only what that session allows.
   */
  connectSessionToken?: string;
}

export type Handler = (ctx: RouteContext) => Promise<Response>;

export interface Route {
  method: string;
  /** Segments: literal, `:name`, or a final `*` capturing the rest (raw). */
  pattern: string;
  /** Secret-key auth required (default true). */
  auth?: boolean;
  /**
   * Also answers a connect session token as the bearer (Nango's Connect UI calls GET /integrations and GET
   * /providers/{provider} with one); the handler then reads `connectSessionToken` and limits its answer to
   * the session. Any other route refuses such a token as it refuses any key it does not know.
   */
  acceptsConnectSession?: boolean;
  handler: Handler;
  /**
   * The route answers with an upstream's response as it came (the proxy). The gateway then adds
   * `X-Request-Id` to its answers only when the caller sent one: a header added to fetch's answer costs
   * Bun time on every call and takes a large one off its native write path (docs/benchmarks.md).
   * Its errors (thrown) get the id as every answer does.
   */
  passesThrough?: boolean;
  /**
   * The route in the OpenAPI document (GET /openapi.json, docs/openapi.json); read only to build it,
   * never per request. A new route needs one, or openapi-document.test.ts fails (unless it is in
   * UNDOCUMENTED_ROUTES): give `summary`, `tags`, the SAME zod constants the handler passes to
   * parseWith as `query` / `body`, a zod schema per success status in `responses`, and the route's own
   * error codes in `errors` (add a new code to openapi/error-codes.ts). Then run `bun run openapi`.
   */
  doc?: RouteDoc;
}

interface CompiledRoute extends Route {
  segments: string[];
}

/** A small method + path router. Paths match on decoded segments; `*` keeps the raw rest. */
export class Router {
  private readonly routes: CompiledRoute[] = [];
  /** Candidate routes by first path segment, in registration order; built on first use. */
  private index: Map<string, CompiledRoute[]> | undefined;
  private wildFirst: CompiledRoute[] = [];

  add(...routes: Route[]): this {
    for (const r of routes) this.routes.push({ ...r, segments: r.pattern.split("/").filter(Boolean) });
    this.index = undefined;
    return this;
  }

  /** Every route, in registration order. */
  list(): readonly Route[] {
    return this.routes;
  }

  /** The route and its params, or which methods the path allows when only the method is wrong. */
  match(method: string, rawPath: string): { route: Route; params: Record<string, string> } | { allowed: string[] } {
    let allowed: string[] | undefined;
    for (const route of this.candidates(firstSegment(rawPath))) {
      const params = matchSegments(route.segments, rawPath);
      if (!params) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) return { route, params };
      if (allowed) allowed.push(route.method);
      else allowed = [route.method];
    }
    return { allowed: allowed ?? [] };
  }

  private candidates(first: string): CompiledRoute[] {
    if (!this.index) {
      const index = new Map<string, CompiledRoute[]>();
      const isWild = (r: CompiledRoute) => r.segments.length === 0 || /^[:*]/.test(r.segments[0] as string);
      this.wildFirst = this.routes.filter(isWild);
      for (const r of this.routes) {
        if (isWild(r)) continue;
        const key = r.segments[0] as string;
        if (!index.has(key))
          index.set(
            key,
            this.routes.filter((x) => x.segments[0] === key || isWild(x)),
          );
      }
      this.index = index;
    }
    return this.index.get(first) ?? this.wildFirst;
  }
}

/** The first non-empty segment of a path ("" for none), as `path.split("/").filter(Boolean)[0]`. */
function firstSegment(path: string): string {
  const start = skipSlashes(path, 0);
  const end = path.indexOf("/", start);
  return path.slice(start, end < 0 ? path.length : end);
}

function skipSlashes(path: string, from: number): number {
  let at = from;
  while (path.charCodeAt(at) === 47) at++;
  return at;
}

/**
 * Matches the path's non-empty segments (empty ones, from `//` or a trailing `/`, are skipped) against
 * the pattern, walking the string rather than splitting it.
 */
function matchSegments(pattern: string[], path: string): Record<string, string> | null {
  const params: Record<string, string> = {};
  let at = skipSlashes(path, 0);
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i] as string;
    if (seg === "*") {
      const rest = path.slice(at);
      // The rest's non-empty segments joined by one slash: as it is, unless it has empty ones.
      params["*"] = rest.includes("//") || rest.endsWith("/") ? rest.split("/").filter(Boolean).join("/") : rest;
      return params;
    }
    if (at >= path.length) return null;
    let end = path.indexOf("/", at);
    if (end < 0) end = path.length;
    if (seg.startsWith(":")) {
      try {
        params[seg.slice(1)] = decodeURIComponent(path.slice(at, end));
      } catch {
        return null;
      }
    } else if (end - at !== seg.length || !path.startsWith(seg, at)) {
      return null;
    }
    at = skipSlashes(path, end);
  }
  return at >= path.length ? params : null;
}
