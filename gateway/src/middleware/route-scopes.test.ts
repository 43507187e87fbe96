import { describe, expect, test } from "bun:test";
import { createGateway } from "../gateway.ts";
import { ROUTE_SCOPES } from "./route-scopes.ts";
import { ADMIN_SCOPE, allows } from "./scopes.ts";

const routes = createGateway({ clients: {} as never, baseUrl: "http://127.0.0.1" }).routes();

describe("route scopes", () => {
  test("every authenticated route names its scope in the one table, and the table names no other route", () => {
    const authenticated = routes.filter((r) => r.auth !== false).map((r) => `${r.method} ${r.pattern}`);
    expect(authenticated.filter((r) => !(r in ROUTE_SCOPES))).toEqual([]);
    expect(Object.keys(ROUTE_SCOPES).filter((r) => !authenticated.includes(r))).toEqual([]);
  });

  test("a key without scopes has full access; a wildcard grants what is under it", () => {
    expect(allows([], ADMIN_SCOPE)).toBe(true);
    expect(allows(["environment:*"], "environment:proxy")).toBe(true);
    expect(allows(["environment:connections:*"], "environment:connections:delete")).toBe(true);
    expect(allows(["environment:connections:*"], "environment:connect_sessions:write")).toBe(false);
    expect(allows(["environment:mcp"], "environment:mcp")).toBe(true);
    expect(allows(["environment:mcp"], "environment:actions:execute")).toBe(false);
    expect(allows(["environment:proxy"], ADMIN_SCOPE)).toBe(false);
  });
});
