import { decodeSegment, type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { googleApiError, invalidArgument } from "../../google/fake/google-errors.ts";
import type { MailFakeState } from "./state.ts";

/**
 * Pub/Sub's admin API (pubsub.googleapis.com/v1), the two calls a Gmail push setup makes: create a topic,
 * create a push subscription on it (https://cloud.google.com/pubsub/docs/reference/rest/v1/projects.topics/create,
 * .../projects.subscriptions/create). The fake asks for no credentials here: it stands for the Cloud console.
 */
export function createTopicRoute(ctx: RequestContext, up: MailFakeState): Response {
  const name = `projects/${decodeSegment(ctx.params[0] ?? "")}/topics/${decodeSegment(ctx.params[1] ?? "")}`;
  if (up.pubsub.topics.has(name)) return alreadyExists(name);
  up.pubsub.topics.add(name);
  up.changes.changed();
  return Response.json({ name });
}

/** PUT /v1/projects/{p}/subscriptions/{s} with `{topic, pushConfig: {pushEndpoint, oidcToken?: {serviceAccountEmail, audience?}}}`. */
export async function createSubscriptionRoute(ctx: RequestContext, up: MailFakeState): Promise<Response> {
  const name = `projects/${decodeSegment(ctx.params[0] ?? "")}/subscriptions/${decodeSegment(ctx.params[1] ?? "")}`;
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Invalid JSON payload received.");
  const topic = typeof body.topic === "string" ? body.topic : "";
  const push = (body.pushConfig ?? {}) as { pushEndpoint?: unknown; oidcToken?: Record<string, unknown> };
  const pushEndpoint = typeof push.pushEndpoint === "string" ? push.pushEndpoint : "";
  if (!URL.canParse(pushEndpoint)) return invalidArgument("Invalid push endpoint given (endpoint=).");
  if (!up.pubsub.topics.has(topic)) {
    const message = `Resource not found (resource=${topic.split("/").pop() ?? topic}).`;
    return googleApiError(404, message, { reason: "notFound", message });
  }
  if (up.pubsub.subscriptions.has(name)) return alreadyExists(name);
  const oidc = push.oidcToken ?? {};
  const serviceAccountEmail = typeof oidc.serviceAccountEmail === "string" ? oidc.serviceAccountEmail : undefined;
  const audience = typeof oidc.audience === "string" && oidc.audience !== "" ? oidc.audience : undefined;
  const subscription = up.pubsub.subscribe({ name, topic, pushEndpoint, serviceAccountEmail, audience });
  up.changes.changed();
  return Response.json({
    name,
    topic,
    pushConfig: {
      pushEndpoint,
      ...(subscription.serviceAccountEmail
        ? { oidcToken: { serviceAccountEmail, audience: subscription.audience ?? pushEndpoint } }
        : {}),
    },
    ackDeadlineSeconds: 10,
  });
}

function alreadyExists(name: string): Response {
  const message = `Resource already exists in the project (resource=${name.split("/").pop() ?? name}).`;
  return googleApiError(409, message, { reason: "alreadyExists", message });
}
