import { decodeSegment, type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { graphError } from "../../microsoft/fake/index.ts";
import { graphAuthenticate } from "./graph-auth.ts";
import { notifyEventChange } from "./notifier.ts";
import type { GraphFakeState } from "./state.ts";

const CONTEXT = "https://graph.microsoft.com/v1.0/$metadata";

/** GET /v1.0/me (https://learn.microsoft.com/en-us/graph/api/user-get). */
export function meRoute(ctx: RequestContext, up: GraphFakeState): Response {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const user = up.microsoft.identity.ensureUser(token.email);
  return Response.json({
    "@odata.context": `${CONTEXT}#users/$entity`,
    id: user.id,
    displayName: user.displayName,
    mail: user.mail,
    userPrincipalName: user.userPrincipalName,
  });
}

/** GET /v1.0/me/events. */
export function listEventsRoute(ctx: RequestContext, up: GraphFakeState): Response {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  return Response.json({ "@odata.context": `${CONTEXT}#users('me')/events`, value: up.events.list(token.email) });
}

/** POST /v1.0/me/events: 201 with the event; "created" to the subscriptions. */
export async function createEventRoute(ctx: RequestContext, up: GraphFakeState): Promise<Response> {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const body = await readJsonObject(ctx.request);
  if (!body) return graphError(400, "BadRequest", "Empty Payload. JSON content expected.");
  const event = up.events.create(token.email, body);
  notifyEventChange(up, token.email, "created", event);
  return Response.json(event, { status: 201 });
}

/** GET, PATCH and DELETE /v1.0/me/events/{id}: "updated" and "deleted" to the subscriptions. */
export async function eventRoute(ctx: RequestContext, up: GraphFakeState): Promise<Response> {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const id = decodeSegment(ctx.params[0] ?? "") ?? "";
  const event = up.events.get(token.email, id);
  if (!event) return graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.");
  if (ctx.method === "GET") return Response.json(event);
  if (ctx.method === "DELETE") {
    up.events.delete(token.email, id);
    notifyEventChange(up, token.email, "deleted", event);
    return new Response(null, { status: 204 });
  }
  const body = await readJsonObject(ctx.request);
  if (!body) return graphError(400, "BadRequest", "Empty Payload. JSON content expected.");
  const updated = up.events.update(token.email, id, body) ?? event;
  notifyEventChange(up, token.email, "updated", updated);
  return Response.json(updated);
}
