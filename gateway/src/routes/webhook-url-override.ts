import type { GatewayClients } from "../clients.ts";

/**
 * Nango's `webhook_url_override` (connect sessions, import, PATCH /connections/{id}): checked by the
 * webhook service by the endpoints' rules (https; private addresses only where the operator allows
 * them), 400 `invalid_webhook_url` otherwise, and returned normalised. Absent or "" gives "".
 */
export async function checkWebhookUrlOverride(clients: GatewayClients, value: string | undefined): Promise<string> {
  if (!value) return "";
  return (await clients.webhook.checkEndpointUrl({ url: value, field: "webhook_url_override" })).url;
}
