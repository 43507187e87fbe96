import { createOnEvent, type Nango } from "nango";

// After a connection is created, subscribe to its calendar's events through Microsoft
// Graph (POST /v1.0/subscriptions, https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions)
// and store the subscription's id and clientState in the connection's metadata. Scripts cannot import
// each other: the subscription helpers are repeated in subscription-renewal.ts on purpose.

/**
 * Outlook event subscriptions live at most 10,080 minutes
 * (https://learn.microsoft.com/en-us/graph/api/resources/subscription); an hour less leaves room for
 * clock skew between the sandbox and Graph.
 */
const LIFETIME_MS = (10_080 - 60) * 60 * 1000;

interface NewSubscription {
  status: number;
  id: string;
  clientState: string;
}

/** Subscribes to /me/events, notifications and lifecycle notifications to the webhook URL; throws when Graph refuses. */
async function createSubscription(nango: Nango): Promise<NewSubscription> {
  const address = await nango.getWebhookURL();
  if (!address) throw new Error("the integration has no webhook URL");
  // Graph sends it back on every notification; Junction checks it (at most 128 characters upstream).
  const clientState = nango.uuid();
  const res = await nango.post<{ id?: unknown }>({
    endpoint: "/v1.0/subscriptions",
    data: {
      changeType: "created,updated,deleted",
      notificationUrl: address,
      lifecycleNotificationUrl: address,
      resource: "/me/events",
      expirationDateTime: new Date(Date.now() + LIFETIME_MS).toISOString(),
      clientState,
    },
  });
  return { status: res.status, id: typeof res.data?.id === "string" ? res.data.id : "", clientState };
}

async function deleteSubscription(nango: Nango, id: string): Promise<boolean> {
  try {
    await nango.delete({ endpoint: `/v1.0/subscriptions/${encodeURIComponent(id)}` });
    nango.log(`deleted Outlook subscription ${id}`);
    return true;
  } catch (err) {
    // A failure to stop a subscription is logged at error level and aborts nothing (as for calendar channels).
    const status = (err as { status?: unknown }).status;
    nango.log(`could not delete Outlook subscription ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
      level: "error",
    });
    return false;
  }
}

export default createOnEvent({
  event: "post-connection-creation",
  description:
    "Creates the Outlook calendar subscription and stores its id and clientState in the connection's metadata",
  version: "1.0.0",
  exec: async (nango) => {
    const before = await nango.getMetadata();
    const created = await createSubscription(nango);
    if (created.status !== 201 || !created.id) {
      throw new Error(`the subscription call answered ${created.status} without an id`);
    }
    try {
      await nango.updateMetadata({ outlookSubscriptionId: created.id, outlookClientState: created.clientState });
    } catch (err) {
      // Unrecorded, the subscription could never be deleted by the other scripts: delete it now.
      await deleteSubscription(nango, created.id);
      throw err;
    }
    nango.log(`created Outlook subscription ${created.id}`);
    // Run again on a connection that already had one, the old subscription must not keep sending.
    const oldId = typeof before.outlookSubscriptionId === "string" ? before.outlookSubscriptionId : "";
    if (oldId && oldId !== created.id) await deleteSubscription(nango, oldId);
    return { outlookSubscriptionId: created.id };
  },
});
