import { JsonDeliveries, type JsonDelivery } from "../../fake-kit/json-deliveries.ts";
import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { type MountedRoute, mountRoutes, route } from "../../fake-kit/router.ts";
import { fake as microsoftFake } from "../../microsoft/fake/index.ts";
import { createEventRoute, eventRoute, listEventsRoute, meRoute } from "./event-routes.ts";
import { EventStore, type GraphEvent, type GraphSubscriptionView, SubscriptionStore } from "./graph-store.ts";
import { changeItem, type LifecycleEvent, notifyEventChange, post, sendLifecycle } from "./notifier.ts";
import type { GraphFakeOptions, GraphFakeState, GraphNotificationMeta, GraphValidation } from "./state.ts";
import {
  createSubscriptionRoute,
  deleteSubscriptionRoute,
  getSubscriptionRoute,
  updateSubscriptionRoute,
} from "./subscription-routes.ts";

export type {
  GraphEvent,
  GraphFakeOptions,
  GraphNotificationMeta,
  GraphSubscriptionView,
  GraphValidation,
  LifecycleEvent,
};
export type GraphNotificationAttempt = JsonDelivery<GraphNotificationMeta>;

export interface GraphFakeControls {
  /** Stores an event as if the user made it in Outlook; "created" goes to the subscriptions. */
  createGraphEvent(email: string, fields?: Record<string, unknown>): GraphEvent;
  /** Changes an event; "updated" goes to the subscriptions. */
  updateGraphEvent(email: string, id: string, fields: Record<string, unknown>): GraphEvent;
  /** Ends a subscription's life now, as when its renewals were missed (Graph then answers 404 for it). */
  expireGraphSubscription(subscriptionId: string): void;
  /** Sends a lifecycle notification on a subscription (`subscriptionRemoved` also removes it). */
  sendGraphLifecycle(subscriptionId: string, event: LifecycleEvent): void;
  /**
   * Sends a change notification on a subscription, whatever its state, its item's fields overridden
   * (a wrong `clientState`, another `subscriptionId`): what a forged or stale notification looks like.
   */
  sendGraphNotification(subscriptionId: string, overrides?: Record<string, unknown>): void;
  /** POSTs `{value}` to a URL as Graph would, for batches no subscription would send. */
  sendGraphBatch(url: string, value: Record<string, unknown>[]): void;
  /** Resolves with all finished batches once `n` (matching `filter`) have finished. */
  awaitGraphNotifications(
    n: number,
    timeoutMs?: number,
    filter?: (attempt: GraphNotificationAttempt) => boolean,
  ): Promise<GraphNotificationAttempt[]>;
  /** Resolves when no batch is queued or in flight. */
  settleGraphNotifications(): Promise<void>;
}

export interface GraphFakeStateView {
  /** Every subscription ever created, with `state` worked out against the clock now. */
  readonly graphSubscriptions: GraphSubscriptionView[];
  /** Validation requests made while creating subscriptions. */
  readonly graphValidations: readonly GraphValidation[];
  /** Finished notification batches, in completion order. */
  readonly graphNotificationsSent: readonly GraphNotificationAttempt[];
}

export interface GraphFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  controls: GraphFakeControls;
  state: GraphFakeStateView;
  /** `graphBaseUrl` replaces `https://graph.microsoft.com`. */
  endpoints: { graphBaseUrl: string };
  sandboxCredentials: Record<string, SandboxCredentialUrls>;
  stop(): void;
}

/** graph.microsoft.com/v1.0 */
const ROUTES = [
  route("GET", /^\/v1\.0\/me$/, meRoute),
  route("GET", /^\/v1\.0\/me\/events$/, listEventsRoute),
  route("POST", /^\/v1\.0\/me\/events$/, createEventRoute),
  route("*", /^\/v1\.0\/me\/events\/([^/]+)$/, eventRoute),
  route("POST", /^\/v1\.0\/subscriptions$/, createSubscriptionRoute),
  route("GET", /^\/v1\.0\/subscriptions\/([^/]+)$/, getSubscriptionRoute),
  route("PATCH", /^\/v1\.0\/subscriptions\/([^/]+)$/, updateSubscriptionRoute),
  route("DELETE", /^\/v1\.0\/subscriptions\/([^/]+)$/, deleteSubscriptionRoute),
];

/** Microsoft Graph for Outlook calendars: the user, events, subscriptions with their validation and notifications. */
export const fake: ProviderFake<GraphFakeOptions, GraphFakeInstance> = {
  name: "microsoft-outlook-calendar",
  start(host: FakeHost, options: GraphFakeOptions): GraphFakeInstance {
    const identity = host.use(microsoftFake);
    const resolved: Required<GraphFakeOptions> = {
      graphValidationTimeoutMs: options.graphValidationTimeoutMs ?? 10_000,
      graphNotificationTimeoutMs: options.graphNotificationTimeoutMs ?? 5000,
      graphAllowInsecureUrls: options.graphAllowInsecureUrls ?? true,
    };
    const up: GraphFakeState = {
      microsoft: identity.microsoft,
      now: host.now,
      changes: host.changes,
      options: resolved,
      events: new EventStore(host.now),
      subscriptions: new SubscriptionStore(host.now),
      notifications: new JsonDeliveries(
        { now: host.now, timeoutMs: resolved.graphNotificationTimeoutMs },
        host.changes,
      ),
      validations: [],
    };
    return {
      routes: mountRoutes(up, ROUTES),
      endpoints: { graphBaseUrl: host.url },
      sandboxCredentials: { "microsoft-outlook-calendar": identity.sandboxCredential(host.url) },
      state: {
        get graphSubscriptions() {
          return up.subscriptions.views();
        },
        graphValidations: up.validations,
        graphNotificationsSent: up.notifications.attempts,
      },
      controls: controls(up),
      stop: () => up.notifications.close(),
    };
  },
};

function controls(up: GraphFakeState): GraphFakeControls {
  const subscription = (id: string) => {
    const found = up.subscriptions.all.get(id);
    if (!found) throw new Error(`fake-upstream: no Graph subscription ${id}`);
    return found;
  };
  return {
    createGraphEvent(email, fields = {}) {
      const start = new Date(up.now());
      const event = up.events.create(email.toLowerCase(), {
        subject: "Fake event",
        start: { dateTime: start.toISOString().replace("Z", ""), timeZone: "UTC" },
        end: { dateTime: new Date(start.getTime() + 3_600_000).toISOString().replace("Z", ""), timeZone: "UTC" },
        ...fields,
      });
      notifyEventChange(up, email.toLowerCase(), "created", event);
      return event;
    },
    updateGraphEvent(email, id, fields) {
      const event = up.events.update(email.toLowerCase(), id, fields);
      if (!event) throw new Error(`fake-upstream: no event ${id} of ${email}`);
      notifyEventChange(up, email.toLowerCase(), "updated", event);
      return event;
    },
    expireGraphSubscription(id) {
      subscription(id).expiration = up.now();
      up.changes.changed();
    },
    sendGraphLifecycle: (id, event) => sendLifecycle(up, subscription(id), event),
    sendGraphNotification(id, overrides = {}) {
      const s = subscription(id);
      const user = up.microsoft.identity.ensureUser(s.creatorEmail);
      const event = up.events.list(user.mail)[0] ?? up.events.create(user.mail, { subject: "Fake event" });
      post(up, s.notificationUrl, [{ ...changeItem(s, user, "updated", event), ...overrides }], "change", s.id);
    },
    sendGraphBatch: (url, value) => post(up, url, value, "raw", url),
    awaitGraphNotifications: (n, timeoutMs = 5000, filter) => up.notifications.awaitAttempts(n, timeoutMs, filter),
    settleGraphNotifications: () => up.notifications.idle(),
  };
}
