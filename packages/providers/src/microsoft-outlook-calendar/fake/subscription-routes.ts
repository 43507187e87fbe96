import { randomUUID } from "node:crypto";
import { decodeSegment, type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { graphError, type MicrosoftToken } from "../../microsoft/fake/index.ts";
import { graphAuthenticate } from "./graph-auth.ts";
import type { GraphSubscription } from "./graph-store.ts";
import { coversEventsOf } from "./notifier.ts";
import type { GraphFakeState } from "./state.ts";

/**
 * Outlook events (without resource data): "Less than 7 days (10,080 minutes)"
 * (https://learn.microsoft.com/en-us/graph/api/resources/subscription#subscription-lifetime).
 */
export const MAX_LIFETIME_MS = 10_080 * 60 * 1000;
/** "The maximum length is 128 characters" (subscription resource type, clientState). */
const MAX_CLIENT_STATE = 128;
const CHANGE_TYPES = new Set(["created", "updated", "deleted"]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * POST /v1.0/subscriptions (https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions):
 * checks the fields, then validates each notification URL before creating anything
 * (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks#notificationurl-validation):
 * POST {url}?validationToken=… which must answer 200 text/plain with the decoded token within 10 s, or
 * the creation fails with 400 ValidationError. 201 with the subscription.
 */
export async function createSubscriptionRoute(ctx: RequestContext, up: GraphFakeState): Promise<Response> {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const body = await readJsonObject(ctx.request);
  if (!body) return graphError(400, "BadRequest", "Empty Payload. JSON content expected.");
  const user = up.microsoft.identity.ensureUser(token.email);
  const { changeType, notificationUrl, lifecycleNotificationUrl, resource, clientState } = body;
  if (typeof changeType !== "string" || !changeType.split(",").every((c) => CHANGE_TYPES.has(c))) {
    return invalidRequest(`Invalid 'changeType' attribute: '${String(changeType ?? "")}'.`);
  }
  if (typeof resource !== "string" || !coversEventsOf(resource, user)) {
    return invalidRequest(`Resource '${String(resource ?? "")}' is not supported by the fake (its events only).`);
  }
  if (typeof notificationUrl !== "string" || !acceptableUrl(notificationUrl, up.options.graphAllowInsecureUrls)) {
    return invalidRequest("Invalid 'notificationUrl': it must be an https URL.");
  }
  const lifecycleUrl = lifecycleNotificationUrl ?? undefined;
  if (
    lifecycleUrl !== undefined &&
    (typeof lifecycleUrl !== "string" || !acceptableUrl(lifecycleUrl, up.options.graphAllowInsecureUrls))
  ) {
    return invalidRequest("Invalid 'lifecycleNotificationUrl': it must be an https URL.");
  }
  if (clientState !== undefined && (typeof clientState !== "string" || clientState.length > MAX_CLIENT_STATE)) {
    return invalidRequest(`The 'clientState' attribute must be a string of at most ${MAX_CLIENT_STATE} characters.`);
  }
  const expiration = expirationOf(body.expirationDateTime, up.now());
  if (expiration instanceof Response) return expiration;
  for (const url of new Set([notificationUrl, lifecycleUrl ?? notificationUrl])) {
    const failed = await validateUrl(up, url);
    if (failed) return failed;
  }
  const subscription = up.subscriptions.add({
    resource,
    changeType,
    notificationUrl,
    ...(lifecycleUrl !== undefined ? { lifecycleNotificationUrl: lifecycleUrl } : {}),
    ...(typeof clientState === "string" ? { clientState } : {}),
    expiration,
    applicationId: token.clientId,
    creatorEmail: user.mail,
  });
  up.changes.changed();
  return Response.json(present(subscription, user.id), { status: 201 });
}

/** PATCH /v1.0/subscriptions/{id} with a new `expirationDateTime` (https://learn.microsoft.com/en-us/graph/api/subscription-update). */
export async function updateSubscriptionRoute(ctx: RequestContext, up: GraphFakeState): Promise<Response> {
  const found = ownLiveSubscription(ctx, up);
  if (found instanceof Response) return found;
  const body = await readJsonObject(ctx.request);
  if (!body) return graphError(400, "BadRequest", "Empty Payload. JSON content expected.");
  const expiration = expirationOf(body.expirationDateTime, up.now());
  if (expiration instanceof Response) return expiration;
  found.subscription.expiration = expiration;
  up.changes.changed();
  return Response.json(present(found.subscription, up.microsoft.identity.ensureUser(found.token.email).id));
}

/** DELETE /v1.0/subscriptions/{id}: 204 (https://learn.microsoft.com/en-us/graph/api/subscription-delete). */
export function deleteSubscriptionRoute(ctx: RequestContext, up: GraphFakeState): Response {
  const found = ownLiveSubscription(ctx, up);
  if (found instanceof Response) return found;
  found.subscription.deletedAt = up.now();
  up.changes.changed();
  return new Response(null, { status: 204 });
}

/** GET /v1.0/subscriptions/{id}. */
export function getSubscriptionRoute(ctx: RequestContext, up: GraphFakeState): Response {
  const found = ownLiveSubscription(ctx, up);
  if (found instanceof Response) return found;
  return Response.json(present(found.subscription, up.microsoft.identity.ensureUser(found.token.email).id));
}

/** A live subscription of the calling app; expired, deleted and other apps' ones are not found. */
function ownLiveSubscription(
  ctx: RequestContext,
  up: GraphFakeState,
): { token: MicrosoftToken; subscription: GraphSubscription } | Response {
  const token = graphAuthenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const subscription = up.subscriptions.live(decodeSegment(ctx.params[0] ?? "") ?? "");
  if (!subscription || subscription.applicationId !== token.clientId) {
    return graphError(404, "ResourceNotFound", "The object was not found.");
  }
  return { token, subscription };
}

async function validateUrl(up: GraphFakeState, url: string): Promise<Response | undefined> {
  // Graph's tokens read like this one, spaces and colons included: the receiver must decode the query.
  const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()}`;
  const target = new URL(url);
  target.searchParams.set("validationToken", token);
  const at = up.now();
  try {
    const got = await up.notifications.post(
      target.toString(),
      { "content-type": "text/plain; charset=utf-8" },
      "",
      up.options.graphValidationTimeoutMs,
    );
    const contentType = got.headers.get("content-type") ?? "";
    const ok = got.status === 200 && contentType.startsWith("text/plain") && got.answer === token;
    up.validations.push({ url, token, status: got.status, contentType, ok, at });
    up.changes.changed();
    if (ok) return undefined;
    return graphError(
      400,
      "ValidationError",
      "Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.",
    );
  } catch (cause) {
    const error = cause instanceof Error ? cause.name : String(cause);
    up.validations.push({ url, token, status: null, contentType: "", ok: false, error, at });
    up.changes.changed();
    const timedOut = error === "TimeoutError";
    return graphError(
      400,
      "ValidationError",
      timedOut ? "Subscription validation request timed out." : "Subscription validation request failed.",
    );
  }
}

function expirationOf(value: unknown, now: number): number | Response {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) return invalidRequest("Invalid 'expirationDateTime': an ISO 8601 date and time is required.");
  if (ms <= now) return invalidRequest("Subscription expiration can only be in the future.");
  if (ms > now + MAX_LIFETIME_MS) {
    return invalidRequest(`Subscription expiration can only be ${MAX_LIFETIME_MS / 60_000} minutes in the future.`);
  }
  return ms;
}

function acceptableUrl(url: string, allowInsecure: boolean): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return true;
  return allowInsecure && parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname);
}

function invalidRequest(message: string): Response {
  return graphError(400, "InvalidRequest", message);
}

function present(s: GraphSubscription, creatorId: string) {
  return {
    "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#subscriptions/$entity",
    id: s.id,
    resource: s.resource,
    applicationId: s.applicationId,
    changeType: s.changeType,
    clientState: s.clientState ?? null,
    notificationUrl: s.notificationUrl,
    lifecycleNotificationUrl: s.lifecycleNotificationUrl ?? null,
    expirationDateTime: new Date(s.expiration).toISOString(),
    creatorId,
    includeResourceData: false,
    latestSupportedTlsVersion: "v1_2",
    notificationQueryOptions: null,
  };
}
