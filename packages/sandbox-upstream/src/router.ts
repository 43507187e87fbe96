import { notFound } from "./google-errors.ts";
import type { RawRequest } from "./start-raw-http-server.ts";
import type { Upstream } from "./upstream.ts";

export interface RequestContext extends RawRequest {
  /** Path exactly as sent, still percent-encoded, without the query. */
  rawPath: string;
  /** Query exactly as sent, without `?`; "" when absent. */
  rawQuery: string;
  query: URLSearchParams;
  /** The route pattern's captures, still percent-encoded. */
  params: string[];
}

export type RouteHandler = (ctx: RequestContext, up: Upstream) => Response | Promise<Response>;

export interface Route {
  method: string;
  pattern: RegExp;
  handler: RouteHandler;
}

/** `method` "*" matches any method; patterns are matched against the raw path. */
export function route(method: string, pattern: RegExp, handler: RouteHandler): Route {
  return { method, pattern, handler };
}

/** Logs the request, then runs the first route whose method and raw path match. */
export async function dispatch(routes: Route[], raw: RawRequest, up: Upstream): Promise<Response> {
  const queryAt = raw.rawTarget.indexOf("?");
  const rawPath = queryAt === -1 ? raw.rawTarget : raw.rawTarget.slice(0, queryAt);
  const rawQuery = queryAt === -1 ? "" : raw.rawTarget.slice(queryAt + 1);
  up.requests.push({
    method: raw.method,
    path: rawPath,
    query: rawQuery,
    headers: headersObject(raw.request.headers),
    at: up.now(),
  });
  up.requestCounts.set(rawPath, (up.requestCounts.get(rawPath) ?? 0) + 1);
  up.changes.changed();

  for (const candidate of routes) {
    if (candidate.method !== "*" && candidate.method !== raw.method) continue;
    const match = candidate.pattern.exec(rawPath);
    if (!match) continue;
    const ctx: RequestContext = {
      ...raw,
      rawPath,
      rawQuery,
      query: new URLSearchParams(rawQuery),
      params: match.slice(1).map((p) => p ?? ""),
    };
    return candidate.handler(ctx, up);
  }
  return notFound(`Not Found: ${raw.method} ${rawPath}`);
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
