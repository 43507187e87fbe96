import type { JsonDeliveries } from "../../fake-kit/json-deliveries.ts";
import type { StateChanges } from "../../fake-kit/state-changes.ts";
import type { MicrosoftFakeState } from "../../microsoft/fake/index.ts";
import type { EventStore, SubscriptionStore } from "./graph-store.ts";

/** Options of the Graph (Outlook calendar) fake; every field has a test-friendly default. */
export interface GraphFakeOptions {
  /** How long the notification URL has to answer the validation request (real ms). Default 10000, Graph's. */
  graphValidationTimeoutMs?: number;
  /** Per-delivery timeout of notification batches (real ms). Default 5000. */
  graphNotificationTimeoutMs?: number;
  /** Accept http:// notification URLs on loopback hosts (Graph demands HTTPS). Default true. */
  graphAllowInsecureUrls?: boolean;
}

/** What one notification POST carried, as the fake records it. */
export interface GraphNotificationMeta {
  /** "change", "lifecycle", or "raw" (a test's hand-made batch). */
  kind: "change" | "lifecycle" | "raw";
  subscriptionIds: string[];
  /** changeType or lifecycleEvent of each item. */
  events: string[];
  items: number;
}

/** One validation request Graph made while creating or updating a subscription. */
export interface GraphValidation {
  url: string;
  token: string;
  status: number | null;
  contentType: string;
  ok: boolean;
  error?: string;
  at: number;
}

export interface GraphFakeState {
  microsoft: MicrosoftFakeState;
  now: () => number;
  changes: StateChanges;
  options: Required<GraphFakeOptions>;
  events: EventStore;
  subscriptions: SubscriptionStore;
  notifications: JsonDeliveries<GraphNotificationMeta>;
  validations: GraphValidation[];
}
