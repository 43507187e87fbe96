import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { createGateway } from "../gateway.ts";
import type { Route } from "../router.ts";
import { ERROR_CODES } from "./error-codes.ts";
import { openApiDocument, openApiPath, UNDOCUMENTED_ROUTES, undocumentedRoutes } from "./openapi-document.ts";

const BASE_URL = "http://j.test";
// Building the routes and the document calls no service.
const gateway = createGateway({
  clients: {} as GatewayClients,
  baseUrl: BASE_URL,
  logger: createLogger({ sink: () => {} }),
});
const routes = gateway.routes();
const excluded = new Set(UNDOCUMENTED_ROUTES.map((u) => u.pattern));
const name = (r: Pick<Route, "method" | "pattern">) => `${r.method} ${r.pattern}`;

type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
};
const doc = openApiDocument(routes, BASE_URL) as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};
/** The operation at the path and method; fails the test when absent. */
function op(path: string, method: string): Operation {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not in the document`);
  return found;
}
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);

describe("the OpenAPI document", () => {
  test("documents every route the gateway serves, except the named exclusions", () => {
    // A new route fails here until it has a `doc` (see the Route type in router.ts) and `bun run openapi` is run.
    expect(undocumentedRoutes(routes).map(name)).toEqual([]);
  });

  test("documents no operation the gateway does not serve, and every served one", () => {
    const served = routes.filter((r) => !excluded.has(r.pattern)).map((r) => `${r.method} ${openApiPath(r.pattern)}`);
    const documented = operations.map((o) => `${o.method} ${o.path}`);
    expect(documented.sort()).toEqual([...new Set(served)].sort());
  });

  test("each exclusion names a served route, has a reason, and leaves it out of the document", () => {
    for (const u of UNDOCUMENTED_ROUTES) {
      expect(routes.some((r) => r.pattern === u.pattern)).toBe(true);
      expect(u.reason.length).toBeGreaterThan(10);
      expect(doc.paths[openApiPath(u.pattern)]).toBeUndefined();
      // A doc on an excluded route would be dead text: the exclusion or the doc is a mistake.
      expect(routes.filter((r) => r.pattern === u.pattern && r.doc).map(name)).toEqual([]);
    }
    expect(excluded.has("/dashboard/api/*")).toBe(true);
  });

  test("is OpenAPI 3.1: unique operation ids, every path parameter declared, every $ref resolves", () => {
    expect(doc.openapi).toBe("3.1.0");
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
      expect(declared).toEqual(inPath as string[]);
    }
    const text = JSON.stringify(doc);
    const refs = new Set([...text.matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)].map((m) => `${m[1]}/${m[2]}`));
    expect(refs.size).toBeGreaterThan(5);
    for (const ref of refs) {
      const [kind, id] = ref.split("/") as [string, string];
      expect(doc.components[kind]?.[id]).toBeDefined();
    }
    expect(text).not.toContain("#/$defs/");
  });

  test("takes the query and body from the handler's own schemas", () => {
    const getIntegration = op("/integrations/{key}", "get");
    expect(getIntegration.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(["path:key", "query:include"]);
    const proxy = op("/proxy/{path}", "post");
    expect(proxy.parameters?.filter((p) => p.in === "header").map((p) => p.name)).toContain("provider-config-key");
    expect(proxy.responses.default).toBeDefined();
  });

  test("lists each route's errors under their HTTP status, the common ones included", () => {
    const del = op("/integrations/{key}", "delete");
    expect(Object.keys(del.responses)).toEqual(["200", "400", "401", "403", "404", "409", "500", "503"]);
    // A key limited to scopes may be refused on any authenticated route.
    expect(JSON.stringify(doc.components.responses?.InsufficientScope)).toContain("insufficient_scope");
    expect(del.responses["409"]).toEqual({ $ref: "#/components/responses/IntegrationHasConnections" });
    expect(JSON.stringify(doc.components.responses?.IntegrationHasConnections)).toContain(
      '"enum":["integration_has_connections"]',
    );
    const create = JSON.stringify(op("/integrations", "post").responses["400"]);
    for (const code of ["invalid_body", "invalid_json", "unknown_provider", "missing_auth_header"]) {
      expect(create.includes(`"${code}"`)).toBe(code !== "missing_auth_header");
    }
    expect(del.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthenticated" });
    // A code answered at a status of the route's own (doc.errorStatus): unknown_provider is 400 elsewhere.
    const provider = op("/providers/{provider}", "get");
    expect(provider.responses["404"]).toEqual({ $ref: "#/components/responses/UnknownProvider" });
    expect(provider.responses["400"]).toBeUndefined();
    const health = op("/health", "get");
    expect(Object.keys(health.responses)).toEqual(["200", "500", "503"]);
  });

  test("names each operation's credential: the secret key, a connect session token, or none", () => {
    expect(op("/integrations", "post").security).toEqual([{ secretKey: [] }]);
    // Nango's Connect UI reads these two with a session token; a secret key reads everything.
    expect(op("/integrations", "get").security).toEqual([{ secretKey: [] }, { connectSessionToken: [] }]);
    expect(op("/providers/{provider}", "get").security).toEqual([{ secretKey: [] }, { connectSessionToken: [] }]);
    expect(op("/connect/session", "get").security).toEqual([{ connectSessionToken: [] }]);
    expect(op("/connect", "get").security).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual(["secretKey", "connectSessionToken"]);
  });

  test("names only error codes the code base answers somewhere", () => {
    const sources = [
      join(import.meta.dir, "../../.."),
      "services",
      "gateway/src",
      "scripts-runtime/src",
      "packages/platform/src",
    ];
    const root = sources[0] as string;
    let text = "";
    const read = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (entry === "node_modules" || entry === "openapi") continue;
        if (statSync(path).isDirectory()) read(path);
        else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts")) text += readFileSync(path, "utf8");
      }
    };
    for (const dir of sources.slice(1)) read(join(root, dir));
    const unused = Object.keys(ERROR_CODES).filter((code) => !text.includes(`"${code}"`));
    expect(unused).toEqual([]);
  });
});

describe("GET /openapi.json", () => {
  test("serves the document without a secret key, with the gateway's base URL as its server", async () => {
    const res = await gateway.fetch(new Request(`${BASE_URL}/openapi.json`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as { servers: { url: string }[] };
    expect(body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(body.servers).toEqual([{ url: BASE_URL }]);
  });
});
