import { Code } from "@connectrpc/connect";
import type { Integration, Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { invalidArgument, JunctionError, readTextLimited } from "@junction/platform";
import { z } from "zod";
import type { AuthSocketRelay } from "../../auth-socket/auth-socket-relay.ts";
import { successMessage } from "../../auth-socket/auth-socket-messages.ts";
import { queryObject } from "../../http/read-json.ts";
import type { Route, RouteContext } from "../../router.ts";
import { json } from "../../http/json.ts";
import { browserError, wantsHtml } from "./browser-error.ts";
import { escapeHtml, htmlPage } from "./html-page.ts";
import { queryParams } from "./authorization-routes.ts";
import { openerMessage, originOf, startingOrigin } from "./opener.ts";

/** The form's hidden field naming the page that opened the flow (opener.ts); not a credential field. */
const OPENER_FIELD = "opener_origin";
/** The form's hidden field carrying the frontend SDK's WebSocket id from the popup's URL. */
const SOCKET_FIELD = "ws_client_id";

/** A form holds a few short fields: a key, a user name and password, a subdomain. */
const FORM_LIMIT = 16 * 1024;

/** Whether the caller asked for JSON (`Accept: application/json`), as the Connect UI's script does. */
function wantsJson(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("application/json");
}

/** The fields a provider's form asks for: the definition's connect fields, and its mode's credentials when it names none. */
export function formFields(provider: Provider): { key: string; label: string; docsUrl: string; secret: boolean }[] {
  const fields = provider.connectFields.map((f) => ({
    key: f.key,
    label: f.label,
    docsUrl: f.docsUrl,
    secret: f.secret,
  }));
  const has = (key: string) => fields.some((f) => f.key === key);
  const add = (key: string, label: string, secret: boolean) => {
    if (!has(key)) fields.push({ key, label, docsUrl: provider.docsUrl, secret });
  };
  if (provider.authMode === "API_KEY") add("apiKey", "API key", true);
  if (provider.authMode === "BASIC") {
    add("username", "User name", false);
    add("password", "Password", true);
  }
  return fields;
}

/** Whether an integration's provider is connected through the form rather than a consent screen. */
export function usesForm(provider: Provider | undefined): boolean {
  if (provider === undefined || provider.authMode === "") return false;
  // An OAUTH2 provider asks its connect fields (a subdomain, a shop) first, then goes to its consent screen.
  return provider.authMode !== "OAUTH2" || provider.connectFields.length > 0;
}

/** The integration of the path as the session allows it (integration_not_allowed otherwise), and its provider. */
export async function allowedIntegration(
  ctx: RouteContext,
  token: string,
): Promise<{ integ: Integration; provider: Provider | undefined }> {
  const key = ctx.params.integration as string;
  const session = await ctx.clients.connection.getConnectSession({ token });
  const integ = session.integrations.find((i) => i.uniqueKey === key);
  if (!integ) {
    throw new JunctionError(
      "integration_not_allowed",
      `This connect session does not allow integration "${key}".`,
      Code.PermissionDenied,
    );
  }
  const { providers } = await ctx.clients.connection.listProviders({});
  return { integ, provider: providers.find((p) => p.name === integ.provider) };
}

/** The session's integration and its provider, or the error a browser is shown. */
async function sessionIntegration(
  ctx: RouteContext,
  token: string,
): Promise<{ integ: Integration; provider: Provider }> {
  const key = ctx.params.integration as string;
  const { integ, provider } = await allowedIntegration(ctx, token);
  if (!usesForm(provider)) {
    throw invalidArgument(
      "invalid_request",
      `Integration "${key}" is connected through its provider's consent screen: open /oauth/connect/${key}.`,
    );
  }
  return { integ, provider: provider as Provider };
}

function formHtml(ctx: RouteContext, token: string, provider: Provider): string {
  const key = ctx.params.integration as string;
  const query = queryObject(ctx.url);
  // Fields the SDK passed as `params[key]` are filled in; secrets never travel in a URL.
  const given = queryParams(query);
  const inputs = formFields(provider)
    .map((f) => {
      const id = `field-${escapeHtml(f.key)}`;
      // https only (definitions are checked so when saved; a link shown to an end user never runs script).
      const where = f.docsUrl.startsWith("https://")
        ? ` <a class="docs" href="${escapeHtml(f.docsUrl)}" target="_blank" rel="noopener">Where to find it</a>`
        : "";
      const type = f.secret ? "password" : "text";
      const value = !f.secret && given[f.key] ? ` value="${escapeHtml(given[f.key] as string)}"` : "";
      return `<p><label for="${id}">${escapeHtml(f.label)}</label>${where}<br><input id="${id}" name="${escapeHtml(f.key)}" type="${type}"${value} autocomplete="off"></p>`;
    })
    .join("");
  const action = `${ctx.baseUrl}/connect/form/${encodeURIComponent(key)}`;
  const opener = startingOrigin(ctx.req, ctx.url);
  const origin = opener ? `<input type="hidden" name="${OPENER_FIELD}" value="${escapeHtml(opener)}">` : "";
  const socketId = typeof query[SOCKET_FIELD] === "string" ? query[SOCKET_FIELD] : "";
  const socket = socketId ? `<input type="hidden" name="${SOCKET_FIELD}" value="${escapeHtml(socketId)}">` : "";
  return `<form id="connect-form" method="post" action="${escapeHtml(action)}"><input type="hidden" name="connect_session_token" value="${escapeHtml(token)}">${origin}${socket}${inputs}<p><button type="submit">Connect</button></p></form>`;
}

/**
 * GET and POST /connect/form/{integration}: the connect page's form for API_KEY, BASIC and client-credentials
 * providers, and for OAUTH2 providers with connect fields (then on to the consent screen).
 */
export function connectFormRoutes(relay: AuthSocketRelay): Route[] {
  return [
    {
      method: "GET",
      pattern: "/connect/form/:integration",
      auth: false,
      handler: async (ctx) => {
        try {
          const token = queryObject(ctx.url).connect_session_token;
          const { integ, provider } = await sessionIntegration(ctx, typeof token === "string" ? token : "");
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
          return browserError(err, ctx, true, "Cannot connect");
        }
      },
      doc: {
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
        errors: [
          "unknown_connect_session_token",
          "connect_session_expired",
          "integration_not_allowed",
          "invalid_request",
        ],
      },
    },
    {
      method: "POST",
      pattern: "/connect/form/:integration",
      auth: false,
      handler: async (ctx) => {
        const html = wantsHtml(ctx.req);
        try {
          const type = ctx.req.headers.get("content-type") ?? "";
          if (!/^application\/x-www-form-urlencoded\b/i.test(type.trim())) {
            throw new JunctionError(
              "invalid_content_type",
              "Send the form as application/x-www-form-urlencoded.",
              Code.InvalidArgument,
            );
          }
          const tooLarge = () =>
            new JunctionError("request_too_large", `The form exceeds ${FORM_LIMIT} bytes.`, Code.InvalidArgument);
          const fields = Object.fromEntries(
            new URLSearchParams(await readTextLimited(ctx.req.body, FORM_LIMIT, tooLarge)),
          );
          const {
            connect_session_token: token = "",
            [OPENER_FIELD]: opener = "",
            [SOCKET_FIELD]: wsClientId = "",
            ...rest
          } = fields;
          const { provider } = await sessionIntegration(ctx, token);
          if (provider.authMode === "OAUTH2") {
            // The connect fields fill the provider's URLs; then its consent screen, as /oauth/connect does.
            const { authorizationUrl } = await ctx.clients.connection.startAuthorization({
              providerConfigKey: ctx.params.integration as string,
              connectSessionToken: token,
              connectionConfig: rest,
              openerOrigin: (originOf(opener) === opener && opener) || "",
              wsClientId,
            });
            return new Response(null, {
              status: 302,
              headers: { location: authorizationUrl, "cache-control": "no-store", "referrer-policy": "no-referrer" },
            });
          }
          const res = await ctx.clients.connection.submitConnectForm({
            connectSessionToken: token,
            providerConfigKey: ctx.params.integration as string,
            fields: rest,
            wsClientId,
          });
          // The service bound the id to this session before saving: the SDK's socket hears of it too.
          if (wsClientId)
            await relay.push(wsClientId, successMessage(ctx.params.integration as string, res.connectionId));
          // A script (the Connect UI) asks for JSON: Nango's answer of POST /api-auth/api-key/{integration}.
          if (wantsJson(ctx.req)) {
            return json({ connectionId: res.connectionId, providerConfigKey: ctx.params.integration as string });
          }
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
                ["Integration", ctx.params.integration as string],
                ["Connection id", res.connectionId],
              ],
              opener: {
                message: openerMessage({
                  success: true,
                  code: "connected",
                  message: "connected",
                  providerConfigKey: ctx.params.integration as string,
                  connectionId: res.connectionId,
                }),
                origin: (originOf(opener) === opener && opener) || originOf(ctx.baseUrl),
              },
            },
            ctx.requestId,
          );
        } catch (err) {
          return browserError(err, ctx, html, "Cannot connect");
        }
      },
      doc: {
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
      },
    },
  ];
}
