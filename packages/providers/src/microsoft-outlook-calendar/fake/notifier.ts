import type { MicrosoftUser } from "../../microsoft/fake/index.ts";
import type { GraphEvent, GraphSubscription } from "./graph-store.ts";
import type { GraphFakeState, GraphNotificationMeta } from "./state.ts";

/** The lifecycle notifications Graph sends (https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events). */
export type LifecycleEvent = "reauthorizationRequired" | "subscriptionRemoved" | "missed";

const USER_EVENTS = /^\/?(?:me|users\/([^/]+))\/(?:calendar\/)?events$/i;

/** Whether a subscription's resource is the events of this user. */
export function coversEventsOf(resource: string, user: MicrosoftUser): boolean {
  const match = USER_EVENTS.exec(resource);
  if (!match) return false;
  const who = match[1]?.toLowerCase();
  return who === undefined || who === user.id || who === user.userPrincipalName;
}

/** A change notification item for a subscription (https://learn.microsoft.com/en-us/graph/api/resources/changenotification). */
export function changeItem(s: GraphSubscription, user: MicrosoftUser, changeType: string, event: GraphEvent) {
  const path = `Users/${user.id}/Events/${event.id}`;
  return {
    subscriptionId: s.id,
    subscriptionExpirationDateTime: new Date(s.expiration).toISOString(),
    changeType,
    resource: path,
    resourceData: {
      "@odata.type": "#Microsoft.Graph.Event",
      "@odata.id": path,
      "@odata.etag": event["@odata.etag"],
      id: event.id,
    },
    ...(s.clientState !== undefined ? { clientState: s.clientState } : {}),
    tenantId: user.tenantId,
  };
}

/**
 * After an event changed: one batch `{value:[item]}` to each live subscription on the user's events whose
 * changeType names the change (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks;
 * Graph expects 202 Accepted, its retries are not modelled). Returns how many were queued.
 */
export function notifyEventChange(up: GraphFakeState, email: string, changeType: string, event: GraphEvent): number {
  const user = up.microsoft.identity.ensureUser(email);
  const targets = up.subscriptions
    .liveOf(user.mail)
    .filter((s) => coversEventsOf(s.resource, user) && s.changeType.split(",").includes(changeType));
  for (const s of targets) {
    post(up, s.notificationUrl, [changeItem(s, user, changeType, event)], "change", s.id);
  }
  return targets.length;
}

/** A lifecycle notification to the subscription's lifecycleNotificationUrl (or its notificationUrl when none). */
export function sendLifecycle(up: GraphFakeState, s: GraphSubscription, lifecycleEvent: LifecycleEvent): void {
  const user = up.microsoft.identity.ensureUser(s.creatorEmail);
  const item = {
    lifecycleEvent,
    subscriptionId: s.id,
    subscriptionExpirationDateTime: new Date(s.expiration).toISOString(),
    ...(s.clientState !== undefined ? { clientState: s.clientState } : {}),
    tenantId: user.tenantId,
  };
  // "subscriptionRemoved": Graph has removed the subscription; nothing more is sent on it.
  if (lifecycleEvent === "subscriptionRemoved") s.removedAt = up.now();
  post(up, s.lifecycleNotificationUrl ?? s.notificationUrl, [item], "lifecycle", s.id);
}

/** Queues one batch POST; batches to one URL go out in order. */
export function post(
  up: GraphFakeState,
  url: string,
  value: Record<string, unknown>[],
  kind: GraphNotificationMeta["kind"],
  queue: string,
): void {
  const meta: GraphNotificationMeta = {
    kind,
    subscriptionIds: value.map((item) => String(item.subscriptionId ?? "")),
    events: value.map((item) => String(item.lifecycleEvent ?? item.changeType ?? "")),
    items: value.length,
  };
  void up.notifications.send(queue, {
    url,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ value }),
    meta,
  });
  up.changes.changed();
}
