import { z } from "zod";
import { iso, json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import { dataOf, isoOrNull, type RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import type { RefusalLog } from "./authorization-refusals.ts";
import { connectSessionAnswer, presentSession } from "./connect-session-answer.ts";
import { createBody, reconnectBody, sessionFieldsRequest } from "./connect-session-input.ts";
import { recordingRefusals } from "./recording-refusals.ts";

const BODY_LIMIT = 64 * 1024;

const sessionAnswer = dataOf(z.object({ token: z.string(), expires_at: isoOrNull, connect_link: z.string() }));
/** What both session routes answer; a reconnect also names a connection that must exist. */
const SESSION_ERRORS = ["invalid_request", "invalid_tags", "override_not_allowed", "invalid_webhook_url"] as const;

/**
 * POST /connect/sessions, POST /connect/sessions/reconnect and GET /connect/session.
 * `websocketsPath`: where the gateway serves the frontend SDK's socket (JUNCTION_WEBSOCKETS_PATH). A session
 * token GET /connect/session refuses (unknown, expired) is an end user's authorization refused: recorded.
 */
export function connectSessionRoutes(websocketsPath: string, refusals: RefusalLog): Route[] {
  return [
    { method: "POST", pattern: "/connect/sessions", handler: createSession, doc: createDoc },
    { method: "POST", pattern: "/connect/sessions/reconnect", handler: createReconnectSession, doc: reconnectDoc },
    {
      // Nango's GET /connect/session: the session of the connect session token sent as the bearer.
      method: "GET",
      pattern: "/connect/session",
      auth: false,
      handler: recordingRefusals(refusals, "GET /connect/session", (ctx) => readSession(ctx, websocketsPath)),
      doc: readDoc,
    },
  ];
}

/** 201 with the session's token, its expiry and the connect link carrying it. */
function created(baseUrl: string, token: string, expiresAtMs: bigint): Response {
  return json(
    {
      data: {
        token,
        expires_at: iso(expiresAtMs),
        connect_link: `${baseUrl}/connect/?session_token=${encodeURIComponent(token)}`,
      },
    },
    201,
  );
}

async function createSession({ clients, req, baseUrl }: RouteContext): Promise<Response> {
  const body = parseWith(createBody, await readJson(req, BODY_LIMIT), "invalid_body", "body");
  const res = await clients.connection.createConnectSession({
    ...(await sessionFieldsRequest(clients, body)),
    allowedIntegrations: body.allowed_integrations ?? [],
  });
  return created(baseUrl, res.token, res.expiresAtMs);
}

const createDoc: RouteDoc = {
  summary: "Create a connect session",
  description: "A short-lived token for the end user to connect an account at `connect_link`.",
  tags: ["Connect"],
  body: createBody,
  responses: { 201: sessionAnswer },
  errors: [...SESSION_ERRORS],
};

async function createReconnectSession({ clients, req, baseUrl }: RouteContext): Promise<Response> {
  const body = parseWith(reconnectBody, await readJson(req, BODY_LIMIT), "invalid_body", "body");
  const res = await clients.connection.createConnectSession({
    ...(await sessionFieldsRequest(clients, body)),
    reconnectConnectionId: body.connection_id,
    reconnectProviderConfigKey: body.integration_id,
  });
  return created(baseUrl, res.token, res.expiresAtMs);
}

const reconnectDoc: RouteDoc = {
  summary: "Create a reconnect session",
  description: "A connect session that authorizes an existing connection again.",
  tags: ["Connect"],
  body: reconnectBody,
  responses: { 201: sessionAnswer },
  errors: ["unknown_provider_config", "unknown_connection", ...SESSION_ERRORS],
};

async function readSession({ clients, req }: RouteContext, websocketsPath: string): Promise<Response> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  const session = await clients.connection.getConnectSession({ token });
  return json({ data: presentSession(session, websocketsPath) });
}

const readDoc: RouteDoc = {
  summary: "Read the connect session",
  description:
    "The session of the connect session token sent as the bearer (not a secret key): its end user, tags, " +
    "allowed integrations, defaults and overrides, as Nango's.",
  tags: ["Connect"],
  connectSessionToken: true,
  responses: { 200: connectSessionAnswer },
  errors: ["unknown_connect_session_token", "connect_session_expired"],
};
