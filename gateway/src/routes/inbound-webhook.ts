import type { Route } from "../router.ts";

/** /webhook/{environment}/{integration}: upstream notifications (notifications issue). */
export function inboundWebhookRoutes(): Route[] {
  return [];
}
