import { browserRedirect } from "../../http/browser-redirect.ts";
import { fromConnectError } from "@junction/platform";
import { z } from "zod";
import type { AuthSocketRelay } from "../../auth-socket/auth-socket-relay.ts";
import { outcomeMessage, startErrorMessage } from "../../auth-socket/auth-socket-messages.ts";
import { parseWith, queryObject } from "../../http/read-json.ts";
import type { RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { GatewayAttempt, type RefusalLog } from "./authorization-refusals.ts";
import { browserError, wantsHtml } from "./browser-error.ts";
import { callbackPage } from "./callback-page.ts";
import { htmlPage } from "./html-page.ts";
import { originOf, startingOrigin } from "./opener.ts";

/** The callback must answer even when a service hangs: the browser gets a page within this. */
const CALLBACK_DEADLINE_MS = 30_000;

const scopeList = z
  .string()
  .max(4096)
  .transform((v) => v.split(/[,\s]+/).filter(Boolean));

// Browser routes: extra query parameters (added by frontend SDKs) are ignored rather than refused.
const connectQuery = z.object({
  connect_session_token: z.string().min(1).max(512),
  user_scope: scopeList.optional(),
  include_granted_scopes: z.enum(["true", "false"]).optional(),
  login_hint: z.string().max(320).optional(),
  origin: z
    .string()
    .max(2048)
    .optional()
    .describe(
      "The origin of the page that opened this window (set by the connect page; else the Referer's is used): the only origin the callback page posts its result to.",
    ),
  ws_client_id: z
    .string()
    .max(64)
    .optional()
    .describe(
      "The frontend SDK's WebSocket id (its `connection_ack`): the authorization's result is sent on that socket too. Refused when another connect session's authorization holds it.",
    ),
  "params[{key}]": z
    .string()
    .max(512)
    .optional()
    .describe("Nango's connection config (`params[subdomain]=acme`): the provider's connect fields."),
});

/** Nango's `params[key]=value` query entries: the connect fields the SDK's `auth(…, { params })` passes. */
export function queryParams(q: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(q)) {
    const key = /^params\[([A-Za-z0-9_.-]{1,64})\]$/.exec(name)?.[1];
    if (key !== undefined && typeof value === "string" && value.length <= 512) out[key] = value;
  }
  return out;
}

/** The connect form of an integration connected without a consent screen, for the SDK's popup. */
function formLocation(ctx: RouteContext): string {
  const target = new URL(`${ctx.baseUrl}/connect/form/${encodeURIComponent(ctx.params.integration as string)}`);
  for (const name of ["connect_session_token", "ws_client_id", "origin"]) {
    const value = ctx.url.searchParams.get(name);
    if (value !== null) target.searchParams.set(name, value);
  }
  for (const [key, value] of Object.entries(queryParams(queryObject(ctx.url)))) {
    target.searchParams.set(`params[${key}]`, value);
  }
  return target.toString();
}

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

/** GET /oauth/connect/{integration} (302 upstream) and GET /oauth/callback (a page saying what happened). */
export function authorizationRoutes(relay: AuthSocketRelay, refusals: RefusalLog): Route[] {
  return [
    {
      method: "GET",
      pattern: "/oauth/connect/:integration",
      auth: false,
      handler: (ctx) =>
        startAuthorization(ctx, relay, new GatewayAttempt(refusals, ctx, "GET /oauth/connect/:integration")),
      doc: startDoc,
    },
    {
      method: "GET",
      pattern: "/oauth/callback",
      auth: false,
      handler: (ctx) => oauthCallback(ctx, relay),
      doc: callbackDoc,
    },
  ];
}

/** Redirects to the provider's consent page (or an integration's form); a refusal also goes to the SDK's socket. */
async function startAuthorization(
  ctx: RouteContext,
  relay: AuthSocketRelay,
  attempt: GatewayAttempt,
): Promise<Response> {
  const html = wantsHtml(ctx.req);
  try {
    const query = queryObject(ctx.url);
    const q = parseWith(connectQuery, query, "invalid_query_params", "query");
    attempt.handOver();
    const { authorizationUrl } = await ctx.clients.connection.startAuthorization({
      connectionConfig: queryParams(query),
      wsClientId: q.ws_client_id ?? "",
      providerConfigKey: ctx.params.integration as string,
      connectSessionToken: q.connect_session_token,
      extraScopes: q.user_scope ?? [],
      includeGrantedScopes: q.include_granted_scopes === "true",
      loginHint: q.login_hint ?? "",
      openerOrigin: startingOrigin(ctx.req, ctx.url),
    });
    return browserRedirect(authorizationUrl);
  } catch (err) {
    const refusal = fromConnectError(err);
    // The SDK's popup for an API key, basic or client-credentials integration: its form, which ends the same way.
    if (html && refusal.code === "not_an_authorization_flow") {
      return browserRedirect(formLocation(ctx));
    }
    // A program asking to start a form's integration here is refused, and that ends its attempt.
    await attempt.refused(err, refusal.code === "not_an_authorization_flow");
    const wsClientId = ctx.url.searchParams.get("ws_client_id");
    const told = wsClientId ? startErrorMessage(ctx.params.integration as string, refusal) : undefined;
    if (wsClientId && told) await relay.push(wsClientId, told);
    return browserError(err, ctx, html, "Cannot start the connection");
  }
}

/** Completes the authorization the provider sent the browser back for, and answers with a page. */
async function oauthCallback(ctx: RouteContext, relay: AuthSocketRelay): Promise<Response> {
  // Everything is wrapped: whatever happens, the browser gets a page that says what (spec: What the service does 3).
  try {
    const q = queryObject(ctx.url);
    const res = await ctx.clients.connection.completeAuthorization(
      {
        state: single(q.state),
        code: single(q.code),
        error: single(q.error),
        errorDescription: single(q.error_description),
        callbackParams: callbackParams(q),
      },
      { timeoutMs: CALLBACK_DEADLINE_MS },
    );
    // The SDK's socket, when the authorization was started with one: only a first use of the state names it.
    if (res.wsClientId) await relay.push(res.wsClientId, outcomeMessage(res));
    return callbackPage(res, ctx.requestId, originOf(ctx.baseUrl));
  } catch (err) {
    const page = await browserError(err, ctx, true, "Authorization failed");
    return page.status === 500
      ? htmlPage(
          500,
          {
            title: "Authorization failed",
            code: "internal_error",
            heading: "Authorization failed",
            message: `Junction could not complete the authorization because of an internal error; it may or may not have been saved. Check the app, and start again if it is not connected. Quote request id ${ctx.requestId} when reporting it.`,
          },
          ctx.requestId,
        )
      : page;
  }
}

const startDoc: RouteDoc = {
  summary: "Start the OAuth authorization",
  description:
    "Redirects the browser to the provider's consent page (a browser asking for an integration connected through a form, to its form at /connect/form/{integration}). Errors are pages for a browser (Accept: text/html), the error body otherwise.",
  tags: ["Connect"],
  params: { integration: "The integration's id." },
  query: connectQuery,
  responses: {
    302: {
      description: "To the provider's authorization URL, or a browser to the integration's connect form.",
      headers: { location: "The authorization URL, or the form's." },
    },
  },
  errors: [
    "unknown_connect_session_token",
    "connect_session_expired",
    "integration_not_allowed",
    "unknown_provider_config",
    "integration_missing_credentials",
    "test_credentials_unavailable",
    "unknown_connection",
    "invalid_request",
    "not_an_authorization_flow",
    "ws_client_id_in_use",
  ],
};

const callbackDoc: RouteDoc = {
  summary: "The OAuth callback",
  description:
    "Where the provider sends the browser back (register `{base_url}/oauth/callback` as the redirect URI). Always a page saying what happened, errors included.",
  tags: ["Connect"],
  query: z.object({
    state: z.string().optional(),
    code: z.string().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
  }),
  queryUnchecked: true,
  responses: { 200: { description: "An HTML page: connected, or why not.", contentType: "text/html" } },
  errors: [],
};

/** The protocol's own parameters; the others are passed on for connection-config fields (QuickBooks' realmId). */
const PROTOCOL_PARAMS = new Set(["state", "code", "error", "error_description"]);

/** The callback's other query parameters: single values, at most 20, each at most 512 characters. */
function callbackParams(q: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(q)) {
    if (PROTOCOL_PARAMS.has(name) || typeof value !== "string" || value.length > 512) continue;
    if (Object.keys(out).length >= 20) break;
    out[name] = value;
  }
  return out;
}
