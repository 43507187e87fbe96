import { z } from "zod";
import type { Route } from "../router.ts";
import { ERROR_CODES, type ErrorCode, statusOfCode } from "./error-codes.ts";
import type { OtherAnswer, RouteDoc } from "./route-doc.ts";

/**
 * Served routes left out of the public document, each with why. The dashboard is a browser UI whose
 * /dashboard/api/* mirrors the documented REST routes for a session cookie instead of a secret key.
 */
const DASHBOARD = "the dashboard (a browser UI behind its own login; not part of the REST API)";
export const UNDOCUMENTED_ROUTES: readonly { pattern: string; reason: string }[] = [
  { pattern: "/", reason: "redirects a browser to the dashboard" },
  { pattern: "/dashboard", reason: DASHBOARD },
  { pattern: "/dashboard/login", reason: DASHBOARD },
  { pattern: "/dashboard/logout", reason: DASHBOARD },
  { pattern: "/dashboard/assets/dashboard.css", reason: DASHBOARD },
  { pattern: "/dashboard/assets/app.js", reason: DASHBOARD },
  { pattern: "/dashboard/api/session", reason: DASHBOARD },
  { pattern: "/dashboard/api/webhook-messages/:id/watch-uri-hints", reason: DASHBOARD },
  { pattern: "/rpc/*", reason: "the public Connect RPCs (docs/rpc.md): typed by the protos, not REST operations" },
  { pattern: "/dashboard/api/*", reason: "the documented REST routes again, for the dashboard's session cookie" },
  { pattern: "/dashboard/*", reason: DASHBOARD },
  { pattern: "/connect/ui.js", reason: "the Connect UI's script (docs/connect-ui.md)" },
  { pattern: "/connect/ui.css", reason: "the Connect UI's stylesheet (docs/connect-ui.md)" },
];

const AUTH_ERRORS: ErrorCode[] = ["missing_auth_header", "malformed_auth_header", "unknown_account"];
const BODY_ERRORS: ErrorCode[] = ["invalid_content_type", "invalid_json", "invalid_body", "request_too_large"];
const EVERY_ROUTE_ERRORS: ErrorCode[] = ["internal_error", "service_unavailable"];

const fieldError = z.object({
  path: z.string(),
  message: z.string(),
  location: z.enum(["query", "body", "header", "path"]).optional().describe("Where in the request the field is."),
});
/** The one error body (docs/api.md); a failed action run adds its run id and Nango's `payload`. */
export const errorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    errors: z.array(fieldError).optional(),
    run_id: z.string().optional().describe("A failed action run's id (GET /scripts/runs/{id})."),
    payload: z.record(z.string(), z.unknown()).optional().describe("What a failed action run threw, as Nango's."),
    upstream: z
      .object({ status: z.number().int(), body: z.unknown() })
      .optional()
      .describe("The failed API call's answer (script_http_error)."),
  }),
});

type Json = Record<string, unknown>;

/** What each tag groups (a route's new tag needs no entry, but reads better with one). */
const TAGS: Record<string, string> = {
  Meta: "The service itself.",
  Providers: "The provider templates integrations are created from.",
  Integrations: "An OAuth client of a provider, with its settings (Nango's integrations).",
  Connections: "An end user's account at a provider, with its tokens held by Junction.",
  "Secret keys": "The keys that authenticate calls to this API.",
  Webhooks: "Webhooks to your app (settings, delivery log, replays) and notifications from upstreams.",
  Connect: "Connecting end users: connect sessions and the OAuth flow in their browser.",
  Proxy: "Calling the upstream API in a connection's name.",
  Scripts: "Syncs and on-event scripts: deploy, list, and their runs.",
  Syncs: "Running syncs: trigger, status, pause and start, frequency.",
  Actions: "Running actions for a connection, synchronously or not.",
  Channels: "The upstream notification channels Junction registered.",
};

/** Whether the document leaves the route out (see UNDOCUMENTED_ROUTES). */
export function isUndocumented(route: Pick<Route, "pattern">): boolean {
  return UNDOCUMENTED_ROUTES.some((u) => u.pattern === route.pattern);
}

/** The OpenAPI path of a route pattern: `:name` becomes `{name}`, a final `*` becomes `{path}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");
}

/** Routes that are neither documented nor left out on purpose (the completeness test lists them). */
export function undocumentedRoutes(routes: readonly Route[]): Route[] {
  return routes.filter((r) => !r.doc && !isUndocumented(r));
}

const INFO = {
  title: "Junction API",
  version: "1.0.0",
  description:
    "Junction's REST API, a drop-in for Nango's public API. Every error has one shape, " +
    '`{"error":{"code","message","errors"}}`, with a stable snake_case `code`; each operation lists ' +
    "the codes it may answer under their HTTP status. Any route may also answer 404 `not_found` or " +
    "405 `method_not_allowed` for a path or method it does not serve; HEAD is answered wherever GET is. " +
    "A request id comes back in " +
    "`X-Request-Id`. Generated from the gateway's routes (`bun run openapi`).",
};

function securitySchemes(): Json {
  return {
    secretKey: {
      type: "http",
      scheme: "bearer",
      description: "A secret key of the environment: `Authorization: Bearer <secret key>`.",
    },
    connectSessionToken: {
      type: "http",
      scheme: "bearer",
      description: "A connect session's token (POST /connect/sessions): `Authorization: Bearer <token>`.",
    },
  };
}

/** Every stable error code with what it means and its HTTP status. */
function errorCodeSchema(): Json {
  return {
    type: "string",
    description: "Every stable error code, with what it means.",
    oneOf: (Object.keys(ERROR_CODES) as ErrorCode[]).map((c) => ({
      const: c,
      description: ERROR_CODES[c].description,
      "x-status": statusOfCode(c),
    })),
  };
}

/**
 * The OpenAPI 3.1 document of the routes, built from each route's `doc` (route-doc.ts). Routes
 * without one are left out; undocumentedRoutes names them.
 */
export function openApiDocument(routes: readonly Route[], serverUrl: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const tags: string[] = [];
  const shared: Record<string, unknown> = {};
  const sharedResponses: Record<string, Json> = {};
  for (const route of routes) {
    if (!route.doc || isUndocumented(route)) continue;
    const path = openApiPath(route.pattern);
    paths[path] ??= {};
    (paths[path] as Record<string, Json>)[route.method.toLowerCase()] = operation(
      route,
      route.doc,
      shared,
      sharedResponses,
    );
    for (const t of route.doc.tags) if (!tags.includes(t)) tags.push(t);
  }
  return {
    openapi: "3.1.0",
    info: INFO,
    servers: [{ url: serverUrl }],
    tags: tags.map((name) => (TAGS[name] ? { name, description: TAGS[name] } : { name })),
    paths,
    components: {
      securitySchemes: securitySchemes(),
      responses: sharedResponses,
      schemas: {
        Error: errorSchema(),
        ErrorCode: errorCodeSchema(),
        ...shared,
      },
    },
  };
}

function operation(
  route: Route,
  doc: RouteDoc,
  shared: Record<string, unknown>,
  sharedResponses: Record<string, Json>,
): Json {
  const op: Json = { operationId: operationId(route), summary: doc.summary };
  if (doc.description) op.description = doc.description;
  op.tags = doc.tags;
  op.security = doc.connectSessionToken
    ? [{ connectSessionToken: [] }]
    : route.auth === false
      ? []
      : route.acceptsConnectSession
        ? [{ secretKey: [] }, { connectSessionToken: [] }]
        : [{ secretKey: [] }];
  const parameters = [
    ...pathParameters(route.pattern, doc),
    ...fromObject(doc.query, "query"),
    ...fromObject(doc.headers, "header"),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (doc.body) {
    op.requestBody = {
      required: doc.bodyOptional !== true,
      content: { "application/json": { schema: jsonSchema(doc.body, "input") } },
    };
  }
  if (doc.rawBody && route.method !== "GET") {
    op.requestBody = { required: false, description: doc.rawBody, content: { "*/*": { schema: {} } } };
  }
  const responses: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(doc.responses))
    if (answer) responses[status] = successResponse(answer, shared);
  for (const [status, codes] of errorsByStatus(route, doc)) {
    // One code alone, or the secret key's three: a response of components.responses, named after them.
    const name =
      codes.length === 1
        ? pascalCase(codes[0] as string)
        : codes.join() === AUTH_ERRORS.join()
          ? "Unauthenticated"
          : undefined;
    if (name === undefined) responses[String(status)] = errorResponse(codes);
    else {
      sharedResponses[name] ??= errorResponse(codes);
      responses[String(status)] = { $ref: `#/components/responses/${name}` };
    }
  }
  op.responses = responses;
  return op;
}

/** `getConnectionsConnectionId` for GET /connections/:connectionId; unique as (method, pattern) is. */
function operationId(route: Route): string {
  return route.method.toLowerCase() + pascalCase(openApiPath(route.pattern));
}

/** `ServiceUnavailable` for service_unavailable, `WebhookMessagesId` for /webhook-messages/{id}. */
function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => (w[0] as string).toUpperCase() + w.slice(1)).join("");
}

function pathParameters(pattern: string, doc: RouteDoc): Json[] {
  const names = [...openApiPath(pattern).matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  return names.map((name) => ({
    name,
    in: "path",
    required: true,
    description: doc.params?.[name] ?? name,
    schema: { type: "string" },
  }));
}

/** One parameter per property of a zod object (the query's, or the headers'). */
function fromObject(schema: z.ZodObject | undefined, where: "query" | "header"): Json[] {
  if (!schema) return [];
  const s = jsonSchema(schema, "input") as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    const p: Json = { name, in: where, required: s.required?.includes(name) ?? false };
    if (description) p.description = description;
    p.schema = rest;
    return p;
  });
}

function successResponse(answer: z.ZodType | OtherAnswer, shared: Record<string, unknown>): Json {
  if (answer instanceof z.ZodType) {
    return {
      description: answer.description ?? "OK",
      content: { "application/json": { schema: jsonSchema(answer, "output", shared) } },
    };
  }
  const out: Json = { description: answer.description };
  if (answer.headers) {
    out.headers = Object.fromEntries(
      Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
    );
  }
  if (answer.contentType) out.content = { [answer.contentType]: { schema: {} } };
  return out;
}

/** Every error code the document says the route answers: its own and the common ones. */
export function documentedErrors(route: Route, doc: RouteDoc): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(doc.errors);
  if (route.auth !== false) for (const c of [...AUTH_ERRORS, "insufficient_scope" as const]) codes.add(c);
  if (doc.query && !doc.queryUnchecked) codes.add("invalid_query_params");
  if (doc.body) for (const c of BODY_ERRORS) codes.add(c);
  for (const c of EVERY_ROUTE_ERRORS) codes.add(c);
  return codes;
}

/** The HTTP status the route answers a code with: its own (doc.errorStatus), else the code's. */
export function statusOnRoute(doc: RouteDoc, code: ErrorCode): number {
  return doc.errorStatus?.[code] ?? statusOfCode(code);
}

/** The route's codes with the common ones, grouped by HTTP status, in ascending status. */
function errorsByStatus(route: Route, doc: RouteDoc): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of documentedErrors(route, doc)) {
    const status = statusOnRoute(doc, code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus].sort((a, b) => a[0] - b[0]);
}

/** The error body's schema, its `code` one of ErrorCode's. */
function errorSchema(): Json {
  const schema = jsonSchema(errorBody, "output") as { properties: { error: { properties: Json } } };
  schema.properties.error.properties.code = { $ref: "#/components/schemas/ErrorCode" };
  return schema;
}

function errorResponse(codes: ErrorCode[]): Json {
  return {
    description: `${codes.map((c) => `\`${c}\``).join(", ")} (see the ErrorCode schema).`,
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            { properties: { error: { properties: { code: { enum: codes } } } } },
          ],
        },
      },
    },
  };
}

/**
 * A zod schema as JSON Schema draft 2020-12 (OpenAPI 3.1's dialect), without `$schema`. Schemas with
 * a `meta({ id })` (shared answers, e.g. Integration) go to `components.schemas` once, referenced.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output", shared?: Record<string, unknown>): Json {
  const converted = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" });
  const {
    $schema: _,
    $defs,
    ...rest
  } = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  for (const [id, def] of Object.entries(($defs ?? {}) as Json)) {
    if (!shared) throw new Error(`A schema with an id (${id}) is only for answers`);
    const known = shared[id];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(def)) {
      throw new Error(`Two different schemas have the id ${id}`);
    }
    shared[id] = def;
  }
  return rest;
}
