import { randomBytes } from "node:crypto";
import { authorize } from "../../google/fake/bearer-auth.ts";
import { googleApiError, invalidArgument } from "../../google/fake/google-errors.ts";
import type { AccessTokenRecord, FakeUser } from "../../google/fake/oauth-store.ts";
import { decodeSegment, type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { publishMailboxChange } from "./mailbox-watches.ts";
import { GMAIL_READ_SCOPES, GMAIL_SEND_SCOPES, type MailFakeState } from "./state.ts";

/** Gmail's `{userId}` is "me" or the token owner's own address; anything else is delegation. */
export function mailbox(ctx: RequestContext, up: MailFakeState, token: AccessTokenRecord): FakeUser | Response {
  const userId = decodeSegment(ctx.params[0] ?? "") ?? "";
  if (userId !== "me" && userId.toLowerCase() !== token.email) {
    const message = `Delegation denied for ${token.email}`;
    return googleApiError(403, message, { reason: "forbidden", message });
  }
  return up.google.oauth.ensureUser(token.email);
}

/** GET /gmail/v1/users/{userId}/profile. */
export function profileRoute(ctx: RequestContext, up: MailFakeState): Response {
  const token = authorize(ctx.request, up.google, GMAIL_READ_SCOPES);
  if (token instanceof Response) return token;
  const user = mailbox(ctx, up, token);
  if (user instanceof Response) return user;
  return Response.json({
    emailAddress: user.email,
    messagesTotal: user.messagesTotal,
    threadsTotal: user.threadsTotal,
    historyId: String(user.historyId),
  });
}

/**
 * POST /gmail/v1/users/{userId}/messages/send with JSON `{ raw }` (base64url RFC 822), or
 * POST /upload/gmail/v1/... with the message itself as the body.
 */
export async function sendMessageRoute(ctx: RequestContext, up: MailFakeState): Promise<Response> {
  const token = authorize(ctx.request, up.google, GMAIL_SEND_SCOPES);
  if (token instanceof Response) return token;
  const user = mailbox(ctx, up, token);
  if (user instanceof Response) return user;

  let raw: string;
  let threadId: string | undefined;
  if (ctx.rawPath.startsWith("/upload/")) {
    raw = await ctx.request.text();
  } else {
    const body = await readJsonObject(ctx.request);
    if (!body || typeof body.raw !== "string" || body.raw === "") {
      return invalidArgument(
        "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
        "invalidArgument",
      );
    }
    raw = Buffer.from(body.raw, "base64url").toString("utf8");
    threadId = typeof body.threadId === "string" ? body.threadId : undefined;
  }
  const id = randomBytes(8).toString("hex");
  user.messagesTotal += 1;
  if (!threadId) user.threadsTotal += 1;
  user.historyId += 1;
  up.sentMessages.push({ id, threadId: threadId ?? id, from: user.email, raw });
  publishMailboxChange(up.watches, up.pubsub, user, ["SENT"]);
  up.changes.changed();
  return Response.json({ id, threadId: threadId ?? id, labelIds: ["SENT"] });
}
