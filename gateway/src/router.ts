import type { Logger } from "@junction/platform";
import type { GatewayClients } from "./clients.ts";

/** What a route handler gets. */
export interface RouteContext {
  req: Request;
  url: URL;
  params: Record<string, string>;
  requestId: string;
  /** Set by the auth middleware on authenticated routes. */
  environmentId: string;
  clients: GatewayClients;
  logger: Logger;
  baseUrl: string;
}

export type Handler = (ctx: RouteContext) => Promise<Response>;

export interface Route {
  method: string;
  /** Segments: literal, `:name`, or a final `*` capturing the rest (raw). */
  pattern: string;
  /** Secret-key auth required (default true). */
  auth?: boolean;
  handler: Handler;
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

  /** The route and its params, or which methods the path allows when only the method is wrong. */
  match(method: string, rawPath: string): { route: Route; params: Record<string, string> } | { allowed: string[] } {
    const parts = rawPath.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.candidates(parts[0] ?? "")) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) return { route, params };
      allowed.push(route.method);
    }
    return { allowed };
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

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i] as string;
    if (seg === "*") {
      params["*"] = parts.slice(i).join("/");
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (seg.startsWith(":")) {
      try {
        params[seg.slice(1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (seg !== part) {
      return null;
    }
  }
  return parts.length === pattern.length ? params : null;
}
