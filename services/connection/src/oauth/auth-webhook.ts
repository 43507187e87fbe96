import { create, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { newId } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import type { EnvironmentRecord, IntegrationRecord } from "../store/records.ts";

export type AuthOperation = "creation" | "override" | "refresh";

export interface AuthWebhookInput {
  env: EnvironmentRecord;
  integ: IntegrationRecord;
  connectionId: string;
  operation: AuthOperation;
  success: boolean;
  endUser: Record<string, unknown> | null;
  /** The connection's tags (Nango's auth webhook carries them); omitted when empty. */
  tags?: Record<string, string>;
  error?: { type: string; description: string };
  /**
   * Where it goes instead of the endpoints; for a failure before the connection exists (its session's
   * override). Otherwise the webhook service takes the connection's own.
   */
  webhookUrlOverride?: string;
  /** The provider's auth mode (Nango's `authMode`); OAUTH2 when not given. */
  authMode?: string;
}

/**
 * The auth webhook body, in Nango's shape (docs/reference/nango-api.md section 5): `creation` for a
 * new connection, `override` for a re-authorization, `refresh` for a failed token refresh.
 */
export function authWebhookBody(input: AuthWebhookInput): Record<string, unknown> {
  const body: Record<string, unknown> = {
    from: "junction",
    type: "auth",
    operation: input.operation,
    success: input.success,
    connectionId: input.connectionId,
    providerConfigKey: input.integ.uniqueKey,
    authMode: input.authMode ?? "OAUTH2",
    provider: input.integ.provider,
    environment: input.env.name,
  };
  const endUser = endUserOf(input.endUser);
  if (endUser) body.endUser = endUser;
  if (input.tags && Object.keys(input.tags).length > 0) body.tags = input.tags;
  if (input.error) body.error = input.error;
  return body;
}

/**
 * Enqueues the auth webhook on the durable delivery queue; the webhook service signs and delivers it.
 * The message id doubles as the queue's de-duplication id.
 */
export async function enqueueAuthWebhook(ctx: ConnectionServiceContext, input: AuthWebhookInput): Promise<void> {
  const now = ctx.clock.now();
  const messageId = newId("msg", now);
  const body = new TextEncoder().encode(JSON.stringify(authWebhookBody(input)));
  const job = create(DeliveryRequestedSchema, {
    messageId,
    environmentId: input.env.id,
    type: "auth",
    body,
    providerConfigKey: input.integ.uniqueKey,
    connectionId: input.connectionId,
    atMs: BigInt(now),
    targetUrl: input.webhookUrlOverride ?? "",
  });
  await ctx.bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, job), { msgId: messageId });
  ctx.logger.info("auth webhook enqueued", {
    messageId,
    integration: input.integ.uniqueKey,
    connectionId: input.connectionId,
    operation: input.operation,
    success: input.success,
  });
}

/** Nango's endUser object: {endUserId, endUserEmail?, organizationId?, tags?}. */
function endUserOf(endUser: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!endUser || typeof endUser.id !== "string") return null;
  const out: Record<string, unknown> = { endUserId: endUser.id };
  if (typeof endUser.email === "string") out.endUserEmail = endUser.email;
  const org = endUser.organization as Record<string, unknown> | undefined;
  if (org && typeof org.id === "string") out.organizationId = org.id;
  if (endUser.tags && typeof endUser.tags === "object") out.tags = endUser.tags;
  return out;
}
