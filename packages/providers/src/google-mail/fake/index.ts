import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { type MountedRoute, mountRoutes, route } from "../../fake-kit/router.ts";
import { fake as googleFake } from "../../google/fake/index.ts";
import { profileRoute, sendMessageRoute } from "./gmail-routes.ts";
import { MailboxWatches, type MailboxWatchView, publishMailboxChange } from "./mailbox-watches.ts";
import { PubSub, type PushDelivery, type PushSubscription, type PushTokenFault } from "./pubsub.ts";
import { createSubscriptionRoute, createTopicRoute } from "./pubsub-routes.ts";
import type { MailFakeState, SentMessage } from "./state.ts";
import { stopRoute, watchRoute } from "./watch-routes.ts";

export type { MailboxWatchView, PushDelivery, PushSubscription, PushTokenFault, SentMessage };

export interface MailFakeOptions {
  /** Per-push timeout (real ms). Default 5000. */
  pubsubPushTimeoutMs?: number;
}

export interface MailFakeControls {
  /** A message arrives in the mailbox (labels INBOX, UNREAD): its history id advances and its watch publishes. */
  receiveMail(email: string, labelIds?: string[]): { historyId: number; messageId: string };
  /** Creates the topic (if new) and a push subscription on it; `name` defaults to "{topic}-push". */
  createPushSubscription(input: {
    topic: string;
    pushEndpoint: string;
    audience?: string;
    serviceAccountEmail?: string;
    name?: string;
  }): PushSubscription;
  /** Spoils the OIDC token of the next `times` pushes. */
  spoilNextPushTokens(fault: PushTokenFault, times?: number): void;
  /** Pushes a published message again with the same messageId; returns how many subscriptions it went to. */
  redeliverPush(messageId: string): number;
  /** Resolves with all finished pushes once `n` (matching `filter`) have finished. */
  awaitPushes(n: number, timeoutMs?: number, filter?: (push: PushDelivery) => boolean): Promise<PushDelivery[]>;
  /** Resolves when no push is queued or in flight. */
  settlePushes(): Promise<void>;
}

export interface MailFakeStateView {
  readonly sentMessages: readonly SentMessage[];
  /** Every mailbox watch ever made, with `state` worked out against the clock now. */
  readonly gmailWatches: MailboxWatchView[];
  /** Finished Pub/Sub pushes, in completion order. */
  readonly pushesSent: readonly PushDelivery[];
}

export interface MailFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  controls: MailFakeControls;
  state: MailFakeStateView;
  /** `mailBaseUrl` replaces `https://gmail.googleapis.com`, `pubsubBaseUrl` `https://pubsub.googleapis.com`. */
  endpoints: { mailBaseUrl: string; pubsubBaseUrl: string };
  sandboxCredentials: Record<string, SandboxCredentialUrls>;
  stop(): void;
}

const USER = "/gmail/v1/users/([^/]+)";

/** gmail.googleapis.com/gmail/v1 and pubsub.googleapis.com/v1 */
const ROUTES = [
  route("GET", new RegExp(`^${USER}/profile$`), profileRoute),
  route("POST", new RegExp(`^(?:/upload)?${USER}/messages/send$`), sendMessageRoute),
  route("POST", new RegExp(`^${USER}/watch$`), watchRoute),
  route("POST", new RegExp(`^${USER}/stop$`), stopRoute),
  route("PUT", /^\/v1\/projects\/([^/]+)\/topics\/([^/:]+)$/, createTopicRoute),
  route("PUT", /^\/v1\/projects\/([^/]+)\/subscriptions\/([^/:]+)$/, createSubscriptionRoute),
];

/** Gmail v1 (profile, sending, mailbox watches) and the Pub/Sub that pushes its notifications, signed. */
export const fake: ProviderFake<MailFakeOptions, MailFakeInstance> = {
  name: "google-mail",
  start(host: FakeHost, options: MailFakeOptions): MailFakeInstance {
    const accounts = host.use(googleFake);
    const timeoutMs = options.pubsubPushTimeoutMs ?? 5000;
    const up: MailFakeState = {
      google: accounts.google,
      changes: host.changes,
      sentMessages: [],
      watches: new MailboxWatches(host.now),
      pubsub: new PubSub(host.now, accounts.google.idTokens, host.changes, timeoutMs),
    };
    return {
      routes: mountRoutes(up, ROUTES),
      endpoints: { mailBaseUrl: host.url, pubsubBaseUrl: host.url },
      sandboxCredentials: { "google-mail": accounts.sandboxCredential(host.url) },
      state: {
        sentMessages: up.sentMessages,
        get gmailWatches() {
          return up.watches.views();
        },
        pushesSent: up.pubsub.deliveries.attempts,
      },
      controls: controls(up),
      stop: () => up.pubsub.deliveries.close(),
    };
  },
};

function controls(up: MailFakeState): MailFakeControls {
  return {
    receiveMail(email, labelIds = ["INBOX", "UNREAD"]) {
      const user = up.google.oauth.ensureUser(email);
      user.messagesTotal += 1;
      user.threadsTotal += 1;
      user.historyId += 1;
      const messageId = publishMailboxChange(up.watches, up.pubsub, user, labelIds);
      up.changes.changed();
      return { historyId: user.historyId, messageId };
    },
    createPushSubscription(input) {
      up.pubsub.topics.add(input.topic);
      const project = input.topic.split("/")[1] ?? "fake-project";
      const name = `projects/${project}/subscriptions/${input.name ?? `${input.topic.split("/").pop()}-push`}`;
      const subscription = up.pubsub.subscribe({ ...input, name });
      up.changes.changed();
      return subscription;
    },
    spoilNextPushTokens: (fault, times) => up.pubsub.spoilNextTokens(fault, times),
    redeliverPush: (messageId) => up.pubsub.redeliver(messageId),
    awaitPushes: (n, timeoutMs = 5000, filter) => up.pubsub.deliveries.awaitAttempts(n, timeoutMs, filter),
    settlePushes: () => up.pubsub.deliveries.idle(),
  };
}
