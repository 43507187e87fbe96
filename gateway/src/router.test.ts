import { describe, expect, test } from "bun:test";
import { Router } from "./router.ts";

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
});
