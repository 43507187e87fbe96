import { browserRedirect } from "../../http/browser-redirect.ts";
import { Code } from "@connectrpc/connect";
import type { SubmitConnectFormResponse } from "@junction/contracts/connection/v1/connection_service_pb";
import { JunctionError, readTextLimited } from "@junction/platform";
import { z } from "zod";
import type { AuthSocketRelay } from "../../auth-socket/auth-socket-relay.ts";
import { successMessage } from "../../auth-socket/auth-socket-messages.ts";
import { json } from "../../http/json.ts";
import { queryObject } from "../../http/read-json.ts";
import type { RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { GatewayAttempt, type RefusalLog } from "./authorization-refusals.ts";
import { browserError, wantsHtml } from "./browser-error.ts";
import { formIntegration } from "./connect-form.ts";
import { formHtml, OPENER_FIELD, SOCKET_FIELD } from "./connect-form-html.ts";
import { htmlPage } from "./html-page.ts";
import { openerMessage, originOf } from "./opener.ts";

/** A form holds a few short fields: a key, a user name and password, a subdomain. */
const FORM_LIMIT = 16 * 1024;

/**
 * GET and POST /connect/form/{integration}: the connect page's form for API_KEY, BASIC and client-credentials
 * providers, and for OAUTH2 providers with connect fields (then on to the consent screen).
 */
export function connectFormRoutes(relay: AuthSocketRelay, refusals: RefusalLog): Route[] {
  return [
    {
      method: "GET",
      pattern: "/connect/form/:integration",
      auth: false,
      handler: (ctx) => showConnectForm(ctx, new GatewayAttempt(refusals, ctx, "GET /connect/form/:integration")),
      doc: showDoc,
    },
    {
      method: "POST",
      pattern: "/connect/form/:integration",
      auth: false,
      handler: (ctx) =>
        submitConnectForm(ctx, relay, new GatewayAttempt(refusals, ctx, "POST /connect/form/:integration")),
      doc: submitDoc,
    },
  ];
}

/** GET: the page with the form the provider's definition asks for. */
async function showConnectForm(ctx: RouteContext, attempt: GatewayAttempt): Promise<Response> {
  try {
    const token = queryObject(ctx.url).connect_session_token;
    const { integ, provider } = await formIntegration(ctx, typeof token === "string" ? token : "");
    return htmlPage(
      200,
      {
        title: "Connect",
        code: "connect_form",
        heading: `Connect ${integ.displayName}`,
        message:
          provider.authMode === "OAUTH2"
            ? "Enter the details below; you then sign in at the provider and allow access."
            : "Enter the credentials below; they are stored encrypted and sent only to the provider.",
        extraHtml: formHtml(ctx, token as string, provider),
        postsForm: true,
      },
      ctx.requestId,
    );
  } catch (err) {
    await attempt.refused(err);
    return browserError(err, ctx, true, "Cannot connect");
  }
}

const showDoc: RouteDoc = {
  summary: "The connect page's form",
  description:
    "For an integration whose provider uses an API key, a user name and password, client credentials, or OAuth with connect fields (a subdomain, a shop): a page asking for the fields its definition names, each with a link to where the user finds it.",
  tags: ["Connect"],
  params: { integration: "The integration's id." },
  query: z.object({
    connect_session_token: z.string(),
    ws_client_id: z.string().optional().describe("The frontend SDK's WebSocket id, carried by the form."),
    "params[{key}]": z.string().optional().describe("A connect field's value, filled in (never a secret's)."),
  }),
  queryUnchecked: true,
  responses: { 200: { description: "An HTML page with the form.", contentType: "text/html" } },
  errors: ["unknown_connect_session_token", "connect_session_expired", "integration_not_allowed", "invalid_request"],
};

/** POST: saves the connection from the fields (or, for OAUTH2, goes on to the consent screen with them). */
async function submitConnectForm(
  ctx: RouteContext,
  relay: AuthSocketRelay,
  attempt: GatewayAttempt,
): Promise<Response> {
  const html = wantsHtml(ctx.req);
  try {
    const {
      connect_session_token: token = "",
      [OPENER_FIELD]: opener = "",
      [SOCKET_FIELD]: wsClientId = "",
      ...rest
    } = await readForm(ctx.req);
    attempt.names(token);
    const { provider } = await formIntegration(ctx, token);
    const key = ctx.params.integration as string;
    attempt.handOver();
    if (provider.authMode === "OAUTH2") {
      // The connect fields fill the provider's URLs; then its consent screen, as /oauth/connect does.
      const { authorizationUrl } = await ctx.clients.connection.startAuthorization({
        providerConfigKey: key,
        connectSessionToken: token,
        connectionConfig: rest,
        openerOrigin: (originOf(opener) === opener && opener) || "",
        wsClientId,
      });
      return browserRedirect(authorizationUrl);
    }
    const res = await ctx.clients.connection.submitConnectForm({
      connectSessionToken: token,
      providerConfigKey: key,
      fields: rest,
      wsClientId,
    });
    // The service bound the id to this session before saving: the SDK's socket hears of it too.
    if (wsClientId) await relay.push(wsClientId, successMessage(key, res.connectionId));
    // A script (the Connect UI) asks for JSON: Nango's answer of POST /api-auth/api-key/{integration}.
    if (wantsJson(ctx.req)) return json({ connectionId: res.connectionId, providerConfigKey: key });
    return connectedPage(ctx, res, opener);
  } catch (err) {
    await attempt.refused(err);
    return browserError(err, ctx, html, "Cannot connect");
  }
}

/** The form's fields, from an urlencoded body of at most FORM_LIMIT bytes. */
async function readForm(req: Request): Promise<Record<string, string>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type.trim())) {
    throw new JunctionError(
      "invalid_content_type",
      "Send the form as application/x-www-form-urlencoded.",
      Code.InvalidArgument,
    );
  }
  const tooLarge = () =>
    new JunctionError("request_too_large", `The form exceeds ${FORM_LIMIT} bytes.`, Code.InvalidArgument);
  return Object.fromEntries(new URLSearchParams(await readTextLimited(req.body, FORM_LIMIT, tooLarge)));
}

/** Whether the caller asked for JSON (`Accept: application/json`), as the Connect UI's script does. */
function wantsJson(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("application/json");
}

/** The page a browser sees once connected, telling the page that opened it (when it named its origin). */
function connectedPage(ctx: RouteContext, res: SubmitConnectFormResponse, opener: string): Response {
  const key = ctx.params.integration as string;
  return htmlPage(
    200,
    {
      title: "Connected",
      code: "connected",
      heading: `Connected to ${res.integrationDisplayName}`,
      message: res.created
        ? `${res.integrationDisplayName} is connected. You can close this window.`
        : `${res.integrationDisplayName} is connected again (the existing connection was updated). You can close this window.`,
      details: [
        ["Integration", key],
        ["Connection id", res.connectionId],
      ],
      opener: {
        message: openerMessage({
          success: true,
          code: "connected",
          message: "connected",
          providerConfigKey: key,
          connectionId: res.connectionId,
        }),
        origin: (originOf(opener) === opener && opener) || originOf(ctx.baseUrl),
      },
    },
    ctx.requestId,
  );
}

const submitDoc: RouteDoc = {
  summary: "Submit the connect page's form",
  description:
    "Creates the connection (or updates a reconnect session's) from the form's fields (`connect_session_token`, then the fields the form asked for). Answers a page for a browser, the error body otherwise.",
  tags: ["Connect"],
  params: { integration: "The integration's id." },
  rawBody:
    "application/x-www-form-urlencoded: connect_session_token, ws_client_id (optional: the frontend SDK's WebSocket, told of the connection) and the form's fields (apiKey, username, password, connection_config keys).",
  responses: {
    200: {
      description:
        'An HTML page: connected; with `Accept: application/json`, `{"connectionId","providerConfigKey"}` (Nango\'s answer of POST /api-auth/api-key/{integration}).',
      contentType: "text/html",
    },
    302: {
      description: "An OAUTH2 provider's form: to its authorization URL, its connect fields filled in.",
      headers: { location: "The authorization URL." },
    },
  },
  errors: [
    "unknown_connect_session_token",
    "connect_session_expired",
    "integration_not_allowed",
    "invalid_request",
    "invalid_content_type",
    "request_too_large",
    "client_credentials_refused",
    "test_credentials_unavailable",
    "integration_missing_credentials",
    "ws_client_id_in_use",
  ],
};
