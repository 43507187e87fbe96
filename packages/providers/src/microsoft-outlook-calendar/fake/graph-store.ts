import { randomBytes, randomUUID } from "node:crypto";

/** An Outlook event as Graph shows it (the fields the fake keeps; any others the client sent are kept too). */
export interface GraphEvent extends Record<string, unknown> {
  id: string;
  subject: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  changeKey: string;
  "@odata.etag": string;
}

/** A change-notification subscription (https://learn.microsoft.com/en-us/graph/api/resources/subscription). */
export interface GraphSubscription {
  id: string;
  resource: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl?: string;
  clientState?: string;
  /** Unix ms, by the fake's clock. */
  expiration: number;
  /** The OAuth client that created it. */
  applicationId: string;
  creatorEmail: string;
  createdAt: number;
  deletedAt?: number;
  /** When Graph removed it (a `subscriptionRemoved` lifecycle notification). */
  removedAt?: number;
}

export interface GraphSubscriptionView extends GraphSubscription {
  state: "active" | "expired" | "deleted" | "removed";
}

/** Every user's events, by email. */
export class EventStore {
  private readonly byUser = new Map<string, Map<string, GraphEvent>>();

  constructor(private readonly now: () => number) {}

  list(email: string): GraphEvent[] {
    return [...(this.byUser.get(email)?.values() ?? [])];
  }

  get(email: string, id: string): GraphEvent | undefined {
    return this.byUser.get(email)?.get(id);
  }

  create(email: string, fields: Record<string, unknown>): GraphEvent {
    const at = new Date(this.now()).toISOString();
    const changeKey = randomBytes(12).toString("base64");
    const event: GraphEvent = {
      subject: "",
      ...fields,
      id: `AAMkAGI2TG93AAA=${randomBytes(18).toString("base64url")}`,
      createdDateTime: at,
      lastModifiedDateTime: at,
      changeKey,
      "@odata.etag": `W/"${changeKey}"`,
    };
    const events = this.byUser.get(email) ?? new Map<string, GraphEvent>();
    events.set(event.id, event);
    this.byUser.set(email, events);
    return event;
  }

  update(email: string, id: string, fields: Record<string, unknown>): GraphEvent | undefined {
    const event = this.get(email, id);
    if (!event) return undefined;
    const changeKey = randomBytes(12).toString("base64");
    Object.assign(event, fields, {
      id,
      lastModifiedDateTime: new Date(this.now()).toISOString(),
      changeKey,
      "@odata.etag": `W/"${changeKey}"`,
    });
    return event;
  }

  delete(email: string, id: string): GraphEvent | undefined {
    const event = this.get(email, id);
    if (event) this.byUser.get(email)?.delete(id);
    return event;
  }
}

/** Subscriptions, every one ever made kept for views; "live" means neither deleted, removed nor expired. */
export class SubscriptionStore {
  readonly all = new Map<string, GraphSubscription>();

  constructor(private readonly now: () => number) {}

  add(fields: Omit<GraphSubscription, "id" | "createdAt">): GraphSubscription {
    const subscription: GraphSubscription = { ...fields, id: randomUUID(), createdAt: this.now() };
    this.all.set(subscription.id, subscription);
    return subscription;
  }

  live(id: string): GraphSubscription | undefined {
    const s = this.all.get(id);
    return s && stateOf(s, this.now()) === "active" ? s : undefined;
  }

  liveOf(email: string): GraphSubscription[] {
    return [...this.all.values()].filter((s) => s.creatorEmail === email && stateOf(s, this.now()) === "active");
  }

  views(): GraphSubscriptionView[] {
    const now = this.now();
    return [...this.all.values()].map((s) => ({ ...s, state: stateOf(s, now) }));
  }
}

function stateOf(s: GraphSubscription, now: number): GraphSubscriptionView["state"] {
  if (s.removedAt !== undefined) return "removed";
  if (s.deletedAt !== undefined) return "deleted";
  return s.expiration > now ? "active" : "expired";
}
