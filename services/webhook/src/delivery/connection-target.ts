import { Code, ConnectError } from "@connectrpc/connect";
import type { WebhookServiceContext } from "../context.ts";
import type { MessageRecord } from "../store/records.ts";

/** The endpoint id of attempts to a connection's webhook URL override (it is no endpoint of the settings). */
export const OVERRIDE_ENDPOINT_ID = "connection_override";

/**
 * The webhook URL override of the message's connection (Nango's webhook_url_override), or undefined
 * when it has none, has no connection, or the connection is gone. As Nango does, a connection's
 * messages of every type (auth, forward, sync...) then go to that URL only, not to the endpoints.
 * Read when the message is stored: a retry or replay goes where the first attempt went. Any other
 * failure to read throws, so that the job that brought the message is delivered again. Forwards do
 * not come here: their match carries the overrides (MatchNotificationResponse.webhook_url_overrides).
 */
export async function connectionTarget(
  ctx: WebhookServiceContext,
  message: Pick<MessageRecord, "providerConfigKey" | "connectionId">,
): Promise<string | undefined> {
  if (message.connectionId === "" || message.providerConfigKey === "") return undefined;
  try {
    const res = await ctx.connections.getConnection({
      providerConfigKey: message.providerConfigKey,
      connectionId: message.connectionId,
    });
    return res.connection?.webhookUrlOverride || undefined;
  } catch (err) {
    if (ConnectError.from(err).code === Code.NotFound) return undefined;
    throw err;
  }
}
