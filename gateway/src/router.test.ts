import { describe, expect, test } from "bun:test";
import { type MatchedRoute, Router, routeParams } from "./router.ts";

const handler = async () => new Response();
const router = new Router().add(
  { method: "GET", pattern: "/health", handler },
  { method: "GET", pattern: "/proxy/*", handler },
  { method: "POST", pattern: "/proxy/*", handler },
  { method: "GET", pattern: "/connections/:id", handler },
  { method: "DELETE", pattern: "/connections/:id", handler },
  { method: "GET", pattern: "/a/:x/b/:y", handler },
);

function matched(method: string, path: string) {
  const found = router.match(method, path);
  return "allowed" in found ? found : { pattern: found.route.pattern, params: found.params };
}

describe("router", () => {
  test("matches literal, parameter and rest segments; empty segments do not count", () => {
    expect(matched("GET", "/health")).toEqual({ pattern: "/health", params: {} });
    expect(matched("GET", "//health/")).toEqual({ pattern: "/health", params: {} });
    expect(matched("GET", "/connections/c%201")).toEqual({ pattern: "/connections/:id", params: { id: "c 1" } });
    expect(matched("GET", "/a/1/b/2")).toEqual({ pattern: "/a/:x/b/:y", params: { x: "1", y: "2" } });
    expect(matched("GET", "/proxy/x/y%2Fz")).toEqual({ pattern: "/proxy/*", params: { "*": "x/y%2Fz" } });
    expect(matched("GET", "/proxy//x//y/")).toEqual({ pattern: "/proxy/*", params: { "*": "x/y" } });
    expect(matched("GET", "/proxy")).toEqual({ pattern: "/proxy/*", params: { "*": "" } });
    expect(matched("HEAD", "/proxy/x")).toEqual({ pattern: "/proxy/*", params: { "*": "x" } });
  });

  test("says which methods a path allows, or none", () => {
    expect(matched("PUT", "/connections/c")).toEqual({ allowed: ["GET", "DELETE"] });
    expect(matched("GET", "/connections/%zz")).toEqual({ allowed: [] });
    expect(matched("GET", "/healthz")).toEqual({ allowed: [] });
    expect(matched("GET", "/a/1/b")).toEqual({ allowed: [] });
    expect(matched("GET", "/")).toEqual({ allowed: [] });
  });

  test("find answers the route without its params, read afterwards as match reads them", () => {
    const found = router.find("GET", "/connections/c%201") as MatchedRoute;
    expect(found.pattern).toBe("/connections/:id");
    expect(routeParams(found, "/connections/c%201")).toEqual({ id: "c 1" });
    expect(routeParams(router.find("GET", "/proxy//x/") as MatchedRoute, "/proxy//x/")).toEqual({ "*": "x" });
    expect(router.find("PUT", "/connections/c")).toEqual(["GET", "DELETE"]);
    expect(router.find("GET", "/connections/%zz")).toEqual([]);
  });

  test("a path after another of the same first segment, or of one it starts with, finds its own routes", () => {
    const paths = ["/proxy/x", "/proxyz/x", "/proxy", "/", "//proxy//y", "/health", "/healthz", "/health/"];
    const first = paths.map((p) => matched("GET", p));
    // Each again, in the other order and after every other path: the same answers.
    for (const [i, p] of [...paths.entries()].reverse()) {
      for (const q of paths) matched("GET", q);
      expect(matched("GET", p)).toEqual(first[i] as ReturnType<typeof matched>);
    }
    expect(first.map((f) => ("allowed" in f ? f.allowed : f.pattern))).toEqual([
      "/proxy/*",
      [],
      "/proxy/*",
      [],
      "/proxy/*",
      "/health",
      [],
      "/health",
    ]);
  });
});
