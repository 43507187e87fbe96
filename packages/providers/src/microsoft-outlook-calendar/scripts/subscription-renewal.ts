import { createSync, type Nango } from "nango";

// The renewal sync (daily): extend the stored subscription's expiration
// (PATCH /v1.0/subscriptions/{id}, https://learn.microsoft.com/en-us/graph/api/subscription-update).
// When that fails (Graph removed it, or it expired), create a new one, store it, then delete the old.
// The helpers repeat post-connection-creation.ts on purpose: a deployed script is one file and may
// import only "nango".

/** Outlook event subscriptions live at most 10,080 minutes (subscription resource docs); an hour less for clock skew. */
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
    const status = (err as { status?: unknown }).status;
    nango.log(`could not delete Outlook subscription ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
      level: "error",
    });
    return false;
  }
}

/** Extends the subscription in place; false when Graph refuses (gone, expired, not ours). */
async function extend(nango: Nango, id: string): Promise<boolean> {
  try {
    await nango.patch({
      endpoint: `/v1.0/subscriptions/${encodeURIComponent(id)}`,
      data: { expirationDateTime: new Date(Date.now() + LIFETIME_MS).toISOString() },
    });
    return true;
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    nango.log(`could not renew Outlook subscription ${id} (status ${status ?? "none"}): creating a new one`, {
      level: "warn",
    });
    return false;
  }
}

export default createSync({
  description:
    "Renews the Outlook calendar subscription every day: its expiration extended, or a new one when that fails",
  version: "1.0.0",
  frequency: "1d",
  autoStart: true,
  // An identifier of the renewal script, not a service endpoint.
  endpoint: "GET /microsoft-outlook-calendar/subscription-renewal",
  exec: async (nango) => {
    const before = await nango.getMetadata();
    const oldId = typeof before.outlookSubscriptionId === "string" ? before.outlookSubscriptionId : "";
    if (oldId && (await extend(nango, oldId))) {
      nango.log(`renewed Outlook subscription ${oldId}`);
      return { outlookSubscriptionId: oldId, renewed: true, oldDeleted: false };
    }
    // A refused creation throws here: the stored ids stay as they were.
    const created = await createSubscription(nango);
    if (created.status !== 201 || !created.id) {
      throw new Error(`the subscription call answered ${created.status} without an id`);
    }
    try {
      await nango.updateMetadata({ outlookSubscriptionId: created.id, outlookClientState: created.clientState });
    } catch (err) {
      await deleteSubscription(nango, created.id);
      throw err;
    }
    nango.log(`replaced Outlook subscription: ${oldId || "(none)"} → ${created.id}`);
    const oldDeleted = oldId ? await deleteSubscription(nango, oldId) : false;
    return { outlookSubscriptionId: created.id, renewed: false, oldDeleted };
  },
});
