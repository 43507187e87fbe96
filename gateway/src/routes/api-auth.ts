import { Code } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";
import { z } from "zod";
import { preflightRoute, withCors } from "../http/cors.ts";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import type { Route, RouteContext } from "../router.ts";
import { queryParams } from "./oauth/authorization-routes.ts";
import { GatewayAttempt, type RefusalLog } from "./oauth/authorization-refusals.ts";
import { allowedIntegration } from "./oauth/connect-form.ts";

const BODY_LIMIT = 16 * 1024;

const apiKeyBody = z.object({ apiKey: z.string().min(1).max(1024) }).strict();
// Either may be empty: some providers take a user name only, others a password only (as Nango).
const basicBody = z.object({ username: z.string().max(1024), password: z.string().max(1024) }).strict();

const apiAuthQuery = z.object({
  connect_session_token: z
    .string()
    .max(512)
    .optional()
    .describe("The connect session token (or send it as `Authorization: Bearer`)."),
  connection_id: z
    .string()
    .max(255)
    .optional()
    .describe("Refused: a connect session names its connection itself (a reconnect session, its own)."),
  "params[{key}]": z.string().max(512).optional().describe("Nango's connection config: the provider's connect fields."),
});

const answer = z.object({ connectionId: z.string(), providerConfigKey: z.string() });

/** The session token from the query (what the SDK sends) or the bearer (what Nango's Connect UI may send). */
function sessionToken(ctx: RouteContext, q: z.infer<typeof apiAuthQuery>): string {
  if (q.connect_session_token) return q.connect_session_token;
  const header = ctx.headers.authorization;
  return /^Bearer\s+(\S+)\s*$/i.exec(typeof header === "string" ? header : "")?.[1] ?? "";
}

/** Refuses an integration whose provider does not take `mode`; the session's own checks come with the submit. */
async function checkAuthMode(ctx: RouteContext, token: string, mode: string): Promise<void> {
  const key = ctx.params.integration as string;
  const { provider } = await allowedIntegration(ctx, token);
  const authMode = provider?.authMode ?? "";
  if (authMode !== mode) {
    throw new JunctionError(
      "invalid_auth_mode",
      `Integration "${key}" authenticates with ${authMode || "an unknown mode"}, not ${mode}.`,
      Code.InvalidArgument,
    );
  }
}

/** The route's work: its query, body and the session's auth mode checked, then the connection service's submit. */
async function submitCredentials(
  ctx: RouteContext,
  attempt: GatewayAttempt,
  mode: "API_KEY" | "BASIC",
  body: z.ZodObject,
): Promise<Response> {
  const query = queryObject(ctx.url);
  const q = parseWith(apiAuthQuery, query, "invalid_query_params", "query");
  if (q.connection_id !== undefined) {
    throw new JunctionError(
      "invalid_query_params",
      "connection_id is not accepted with a connect session token.",
      Code.InvalidArgument,
      [{ path: "connection_id", message: "is forbidden with a connect session token", location: "query" }],
    );
  }
  const credentials = parseWith(body, await readJson(ctx.req, BODY_LIMIT), "invalid_body", "body");
  const token = sessionToken(ctx, q);
  await checkAuthMode(ctx, token, mode);
  attempt.handOver();
  const key = ctx.params.integration as string;
  const res = await ctx.clients.connection.submitConnectForm({
    connectSessionToken: token,
    providerConfigKey: key,
    fields: { ...queryParams(query), ...(credentials as Record<string, string>) },
  });
  return json({ connectionId: res.connectionId, providerConfigKey: key });
}

/** One of Nango's credential routes: the body's credentials and the query's connect fields make the connection. */
function credentialRoute<S extends z.ZodObject>(
  path: string,
  mode: "API_KEY" | "BASIC",
  body: S,
  summary: string,
  refusals: RefusalLog,
): Route {
  const pattern = `/api-auth/${path}/:integration`;
  return {
    method: "POST",
    pattern,
    auth: false,
    handler: withCors(async (ctx) => {
      const attempt = new GatewayAttempt(refusals, ctx, `POST ${pattern}`, mode);
      try {
        return await submitCredentials(ctx, attempt, mode, body);
      } catch (err) {
        await attempt.refused(err);
        throw err;
      }
    }),
    doc: {
      summary,
      description:
        "Nango's credential route for the frontend SDK's `auth(integration, { credentials })` and its Connect UI: the connect session token in the query (or as the bearer), the credentials in the body, the provider's connect fields as `params[key]`. Creates the connection (a reconnect session's: updates it), checked as the connect page's form is, and sends the auth webhook. Any origin may call it (CORS).",
      tags: ["Connect"],
      connectSessionToken: true,
      params: { integration: "The integration's id." },
      query: apiAuthQuery,
      queryUnchecked: true,
      body,
      responses: { 200: answer },
      errors: [
        "unknown_connect_session_token",
        "connect_session_expired",
        "integration_not_allowed",
        "invalid_auth_mode",
        "invalid_request",
      ],
    },
  };
}

/** POST /api-auth/api-key/{integration} and /api-auth/basic/{integration}, with their CORS preflights. */
export function apiAuthRoutes(refusals: RefusalLog): Route[] {
  return [
    credentialRoute("api-key", "API_KEY", apiKeyBody, "Connect with an API key", refusals),
    preflightRoute("/api-auth/api-key/:integration", ["POST"]),
    credentialRoute("basic", "BASIC", basicBody, "Connect with a user name and password", refusals),
    preflightRoute("/api-auth/basic/:integration", ["POST"]),
  ];
}
