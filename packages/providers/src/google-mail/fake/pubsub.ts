import { JsonDeliveries, type JsonDelivery } from "../../fake-kit/json-deliveries.ts";
import type { StateChanges } from "../../fake-kit/state-changes.ts";
import { ISSUER, type IdTokenSigner, type TokenFault } from "../../google/fake/id-token-signer.ts";

/** A push subscription (https://cloud.google.com/pubsub/docs/push): where and as whom Pub/Sub pushes. */
export interface PushSubscription {
  /** projects/{project}/subscriptions/{subscription} */
  name: string;
  /** projects/{project}/topics/{topic} */
  topic: string;
  pushEndpoint: string;
  /** With `serviceAccountEmail`, pushes carry an OIDC token for this audience (default: the endpoint). */
  audience?: string;
  /** Unset: unauthenticated pushes, no Authorization header. */
  serviceAccountEmail?: string;
}

/** How the next push's token is spoiled: a `TokenFault`, expired, for another audience, or absent. */
export type PushTokenFault = TokenFault | "expired" | "wrong-audience" | "missing";

/** What the fake records of one push (the delivery's `meta`). */
export interface PushMeta {
  subscription: string;
  messageId: string;
  emailAddress: string;
  historyId: number;
  /** The token's fault, when it was spoiled on purpose. */
  tokenFault?: PushTokenFault;
  redelivery: boolean;
}

export type PushDelivery = JsonDelivery<PushMeta>;

interface PublishedMessage {
  topic: string;
  messageId: string;
  publishTime: string;
  emailAddress: string;
  historyId: number;
}

/** The audience a spoiled token names instead of the subscription's. */
export const WRONG_AUDIENCE = "https://wrong-audience.invalid/push";
const TOKEN_TTL_S = 3600;

/**
 * Cloud Pub/Sub as Gmail push needs it: topics, push subscriptions, and one authenticated push per
 * subscription for each message published on its topic
 * (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions: an RS256 OIDC token from
 * accounts.google.com for the audience, naming the service account as a verified email).
 */
export class PubSub {
  readonly topics = new Set<string>();
  readonly subscriptions = new Map<string, PushSubscription>();
  readonly messages = new Map<string, PublishedMessage>();
  readonly deliveries: JsonDeliveries<PushMeta>;
  private readonly faults: PushTokenFault[] = [];
  private nextMessageId = 4_100_000_000_000_000;

  constructor(
    private readonly now: () => number,
    private readonly signer: IdTokenSigner,
    changes: StateChanges,
    timeoutMs: number,
  ) {
    this.deliveries = new JsonDeliveries({ now, timeoutMs }, changes);
  }

  /** Adds a push subscription (its topic must exist: the caller checks). */
  subscribe(fields: {
    name: string;
    topic: string;
    pushEndpoint: string;
    serviceAccountEmail?: string | undefined;
    audience?: string | undefined;
  }): PushSubscription {
    const subscription: PushSubscription = {
      name: fields.name,
      topic: fields.topic,
      pushEndpoint: fields.pushEndpoint,
      ...(fields.serviceAccountEmail ? { serviceAccountEmail: fields.serviceAccountEmail } : {}),
      ...(fields.audience ? { audience: fields.audience } : {}),
    };
    this.subscriptions.set(subscription.name, subscription);
    return subscription;
  }

  /** Spoils the token of the next `times` pushes (in order of sending). */
  spoilNextTokens(fault: PushTokenFault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /** Publishes Gmail's `{emailAddress, historyId}` on a topic; returns the message id ("" when no topic). */
  publish(topic: string, emailAddress: string, historyId: number): string {
    if (!this.topics.has(topic)) return "";
    this.nextMessageId += 1;
    const message: PublishedMessage = {
      topic,
      messageId: String(this.nextMessageId),
      publishTime: new Date(this.now()).toISOString(),
      emailAddress,
      historyId,
    };
    this.messages.set(message.messageId, message);
    this.push(message, false);
    return message.messageId;
  }

  /** Pushes a published message again, same messageId (Pub/Sub delivers at least once). */
  redeliver(messageId: string): number {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`fake-upstream: no Pub/Sub message ${messageId}`);
    return this.push(message, true);
  }

  private push(message: PublishedMessage, redelivery: boolean): number {
    const targets = [...this.subscriptions.values()].filter((s) => s.topic === message.topic);
    for (const subscription of targets) {
      const fault = this.faults.shift();
      void this.deliveries.send(subscription.name, {
        url: subscription.pushEndpoint,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(envelope(message, subscription)),
        meta: {
          subscription: subscription.name,
          messageId: message.messageId,
          emailAddress: message.emailAddress,
          historyId: message.historyId,
          ...(fault ? { tokenFault: fault } : {}),
          redelivery,
        },
        lateHeaders: async (): Promise<Record<string, string>> => {
          const authorization = await this.authorization(subscription, fault);
          return authorization ? { authorization } : {};
        },
      });
    }
    return targets.length;
  }

  /** `Authorization: Bearer <OIDC JWT>` of a push, as the subscription's service account, maybe spoiled. */
  async authorization(subscription: PushSubscription, fault?: PushTokenFault): Promise<string | undefined> {
    const email = subscription.serviceAccountEmail;
    if (!email || fault === "missing") return undefined;
    const iat = Math.floor(this.now() / 1000) - (fault === "expired" ? 2 * TOKEN_TTL_S : 0);
    const claims = {
      aud: fault === "wrong-audience" ? WRONG_AUDIENCE : (subscription.audience ?? subscription.pushEndpoint),
      azp: serviceAccountId(email),
      email,
      email_verified: true,
      iat,
      exp: iat + TOKEN_TTL_S,
      iss: ISSUER,
      sub: serviceAccountId(email),
    };
    const tokenFault = fault === "bad-signature" || fault === "unsigned" ? fault : undefined;
    return `Bearer ${await this.signer.signClaims(claims, tokenFault)}`;
  }
}

/** The push request body (https://cloud.google.com/pubsub/docs/push#receive_push), both spellings of the ids. */
function envelope(message: PublishedMessage, subscription: PushSubscription) {
  // Gmail's notification data: base64 JSON {emailAddress, historyId}
  // (https://developers.google.com/workspace/gmail/api/guides/push#receiving_notifications).
  const data = Buffer.from(
    JSON.stringify({ emailAddress: message.emailAddress, historyId: message.historyId }),
  ).toString("base64");
  return {
    message: {
      attributes: {},
      data,
      messageId: message.messageId,
      message_id: message.messageId,
      publishTime: message.publishTime,
      publish_time: message.publishTime,
    },
    subscription: subscription.name,
  };
}

/** A stable numeric id for a service account, as Google's `sub` is. */
function serviceAccountId(email: string): string {
  return String(BigInt(`0x${Bun.SHA256.hash(email, "hex").slice(0, 15)}`) + 100_000_000_000_000_000_000n);
}
