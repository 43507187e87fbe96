import type { RawRequest } from "./start-raw-http-server.ts";

export interface RequestContext extends RawRequest {
  /** Path exactly as sent, still percent-encoded, without the query. */
  rawPath: string;
  /** Query exactly as sent, without `?`; "" when absent. */
  rawQuery: string;
  query: URLSearchParams;
  /** The route pattern's captures, still percent-encoded. */
  params: string[];
}

/** A route's handler gets the request and the state of the fake that registered it. */
export type RouteHandler<S> = (ctx: RequestContext, state: S) => Response | Promise<Response>;

export interface Route<S> {
  method: string;
  pattern: RegExp;
  handler: RouteHandler<S>;
}

/** A route bound to its fake's state, as the server runs it. */
export type MountedRoute = Route<undefined>;

/** `method` "*" matches any method; patterns are matched against the raw path. */
export function route<S>(method: string, pattern: RegExp, handler: RouteHandler<S>): Route<S> {
  return { method, pattern, handler };
}

/** Binds a fake's routes to its state. */
export function mountRoutes<S>(state: S, routes: Route<S>[]): MountedRoute[] {
  return routes.map((r) => ({ method: r.method, pattern: r.pattern, handler: (ctx) => r.handler(ctx, state) }));
}

export interface DispatchHooks {
  /** Called for every request before routing (the request log). */
  arrived(ctx: RequestContext): void;
  /** The answer when no route matches. */
  notFound(ctx: RequestContext): Response;
}

/** Reports the request, then runs the first route whose method and raw path match. */
export async function dispatch(routes: MountedRoute[], raw: RawRequest, hooks: DispatchHooks): Promise<Response> {
  const queryAt = raw.rawTarget.indexOf("?");
  const rawPath = queryAt === -1 ? raw.rawTarget : raw.rawTarget.slice(0, queryAt);
  const rawQuery = queryAt === -1 ? "" : raw.rawTarget.slice(queryAt + 1);
  const base: RequestContext = { ...raw, rawPath, rawQuery, query: new URLSearchParams(rawQuery), params: [] };
  hooks.arrived(base);

  for (const candidate of routes) {
    if (candidate.method !== "*" && candidate.method !== raw.method) continue;
    const match = candidate.pattern.exec(rawPath);
    if (!match) continue;
    return candidate.handler({ ...base, params: match.slice(1).map((p) => p ?? "") }, undefined);
  }
  return hooks.notFound(base);
}

/** Decodes a captured path segment; undefined when its percent-encoding is malformed. */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Reads a JSON object body; undefined when the body is not a JSON object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = JSON.parse(await request.text());
    return body !== null && typeof body === "object" && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Lowercased header names to values (repeated headers joined with ", ", as `Headers` does). */
export function headersObject(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name] = value;
  });
  return result;
}
