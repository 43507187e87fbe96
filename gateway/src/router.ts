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

/** A route as the router keeps it: its pattern split into segments. */
export interface MatchedRoute extends Route {
  segments: string[];
}

/** A small method + path router. Paths match on decoded segments; `*` keeps the raw rest. */
export class Router {
  private readonly routes: MatchedRoute[] = [];
  /** Candidate routes by first path segment, in registration order; built on first use. */
  private index: Map<string, MatchedRoute[]> | undefined;
  private wildFirst: MatchedRoute[] = [];
  /** The last first segment looked up and its candidates: a busy family (the proxy's) skips the lookup. */
  private lastFirst: string | undefined;
  private lastCandidates: MatchedRoute[] = [];

  add(...routes: Route[]): this {
    for (const r of routes) this.routes.push({ ...r, segments: r.pattern.split("/").filter(Boolean) });
    this.index = undefined;
    this.lastFirst = undefined;
    return this;
  }

  /** Every route, in registration order. */
  list(): readonly Route[] {
    return this.routes;
  }

  /** The route and its params, or which methods the path allows when only the method is wrong. */
  match(method: string, rawPath: string): { route: Route; params: Record<string, string> } | { allowed: string[] } {
    const found = this.find(method, rawPath);
    return Array.isArray(found) ? { allowed: found } : { route: found, params: routeParams(found, rawPath) };
  }

  /**
   * As `match`, without reading the params (routeParams reads them when a handler asks): the route, or
   * the methods the path allows. A request's common case allocates nothing here.
   */
  find(method: string, rawPath: string): MatchedRoute | string[] {
    let allowed: string[] | undefined;
    for (const route of this.candidatesOf(rawPath)) {
      if (!matchSegments(route.segments, rawPath)) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) return route;
      if (allowed) allowed.push(route.method);
      else allowed = [route.method];
    }
    return allowed ?? [];
  }

  /** The candidates of the path's first segment: the last ones again when it is the last one's. */
  private candidatesOf(path: string): MatchedRoute[] {
    const start = skipSlashes(path, 0);
    const last = this.lastFirst;
    if (last !== undefined && path.startsWith(last, start)) {
      const end = start + last.length;
      if (end === path.length || path.charCodeAt(end) === 47) return this.lastCandidates;
    }
    const end = path.indexOf("/", start);
    const first = path.slice(start, end < 0 ? path.length : end);
    this.lastCandidates = this.candidates(first);
    this.lastFirst = first;
    return this.lastCandidates;
  }

  private candidates(first: string): MatchedRoute[] {
    if (!this.index) {
      const index = new Map<string, MatchedRoute[]>();
      const isWild = (r: MatchedRoute) => r.segments.length === 0 || /^[:*]/.test(r.segments[0] as string);
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

function skipSlashes(path: string, from: number): number {
  let at = from;
  while (path.charCodeAt(at) === 47) at++;
  return at;
}

/** The params of a path `router.find` matched to `route`: `:name` segments decoded, `*` the raw rest. */
export function routeParams(route: MatchedRoute, path: string): Record<string, string> {
  const params: Record<string, string> = {};
  matchSegments(route.segments, path, params);
  return params;
}

/**
 * Whether the path's non-empty segments (empty ones, from `//` or a trailing `/`, are skipped) match
 * the pattern, walking the string rather than splitting it; with `params`, also reads them into it.
 * A `:name` segment matches only what decodes.
 */
function matchSegments(pattern: string[], path: string, params?: Record<string, string>): boolean {
  let at = skipSlashes(path, 0);
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i] as string;
    if (seg === "*") {
      if (params !== undefined) params["*"] = restOf(path.slice(at));
      return true;
    }
    if (at >= path.length) return false;
    let end = path.indexOf("/", at);
    if (end < 0) end = path.length;
    if (seg.startsWith(":")) {
      const percent = path.indexOf("%", at);
      // Only a segment with a `%` can fail to decode: without params, nothing to read otherwise.
      if (params !== undefined || (percent >= 0 && percent < end)) {
        const value = decodedSegment(path.slice(at, end));
        if (value === undefined) return false;
        if (params !== undefined) params[seg.slice(1)] = value;
      }
    } else if (end - at !== seg.length || !path.startsWith(seg, at)) {
      return false;
    }
    at = skipSlashes(path, end);
  }
  return at >= path.length;
}

/** The rest's non-empty segments joined by one slash: as it is, unless it has empty ones. */
function restOf(rest: string): string {
  return rest.includes("//") || rest.endsWith("/") ? rest.split("/").filter(Boolean).join("/") : rest;
}

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
