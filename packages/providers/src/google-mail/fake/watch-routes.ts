import { authorize } from "../../google/fake/bearer-auth.ts";
import { invalidArgument } from "../../google/fake/google-errors.ts";
import { type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { mailbox } from "./gmail-routes.ts";
import { GMAIL_READ_SCOPES, type MailFakeState } from "./state.ts";

const TOPIC = /^projects\/[^/]+\/topics\/[^/]+$/;

/**
 * POST /gmail/v1/users/{userId}/watch with `{topicName, labelIds?, labelFilterBehavior?}`: replaces the
 * mailbox's one watch and answers `{historyId, expiration}` as strings (int64 in JSON)
 * (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users/watch). The fake does not
 * model the topic's IAM: any well-formed topic name is accepted; Pub/Sub drops what nobody subscribes to.
 */
export async function watchRoute(ctx: RequestContext, up: MailFakeState): Promise<Response> {
  const token = authorize(ctx.request, up.google, GMAIL_READ_SCOPES);
  if (token instanceof Response) return token;
  const user = mailbox(ctx, up, token);
  if (user instanceof Response) return user;
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Parse Error", "parseError");
  const { topicName, labelIds, labelFilterBehavior } = body;
  if (typeof topicName !== "string" || !TOPIC.test(topicName)) {
    return invalidArgument("Invalid topicName does not match projects/SOME-PROJECT/topics/*", "invalidArgument");
  }
  if (labelIds !== undefined && !(Array.isArray(labelIds) && labelIds.every((l) => typeof l === "string"))) {
    return invalidArgument("Invalid value for labelIds", "invalidArgument");
  }
  const behavior = typeof labelFilterBehavior === "string" ? labelFilterBehavior.toLowerCase() : "include";
  if (behavior !== "include" && behavior !== "exclude") {
    return invalidArgument(`Invalid value for labelFilterBehavior: ${String(labelFilterBehavior)}`, "invalidArgument");
  }
  const watch = up.watches.watch({
    email: user.email,
    topicName,
    labelIds: (labelIds as string[] | undefined) ?? [],
    labelFilterBehavior: behavior,
    historyId: user.historyId,
  });
  up.changes.changed();
  return Response.json({ historyId: String(watch.historyId), expiration: String(watch.expiration) });
}

/** POST /gmail/v1/users/{userId}/stop: ends the mailbox's watch; 204 with no body, watch or not. */
export function stopRoute(ctx: RequestContext, up: MailFakeState): Response {
  const token = authorize(ctx.request, up.google, GMAIL_READ_SCOPES);
  if (token instanceof Response) return token;
  const user = mailbox(ctx, up, token);
  if (user instanceof Response) return user;
  up.watches.stop(user.email);
  up.changes.changed();
  return new Response(null, { status: 204 });
}
