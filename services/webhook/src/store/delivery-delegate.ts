import type { AttemptRecord, DeliverableMessage, MessageFilter, MessageRecord, RoundOutcome } from "./records.ts";
import type { InlineClaims, WebhookDeliveryStore } from "./store.ts";

/**
 * The delivery half of a webhook service store, answered by the delivery store it holds (the
 * SQLite or MongoDB one): the service's stores extend this instead of forwarding each method by hand,
 * so a delivery method is added in one place.
 */
export abstract class DeliveryDelegate implements WebhookDeliveryStore {
  protected abstract readonly delivery: WebhookDeliveryStore;

  get inlineClaims(): InlineClaims | undefined {
    return this.delivery.inlineClaims;
  }

  insertMessage(message: MessageRecord): Promise<boolean> {
    return this.delivery.insertMessage(message);
  }

  getMessage(environmentId: string, id: string): Promise<MessageRecord | null> {
    return this.delivery.getMessage(environmentId, id);
  }

  listMessages(
    environmentId: string,
    filter: MessageFilter,
    limit: number,
    beforeId?: string,
  ): Promise<MessageRecord[]> {
    return this.delivery.listMessages(environmentId, filter, limit, beforeId);
  }

  listAttempts(messageId: string): Promise<AttemptRecord[]> {
    return this.delivery.listAttempts(messageId);
  }

  claimMessage(id: string, now: number, leaseUntil: number, leaseToken: string): Promise<MessageRecord | null> {
    return this.delivery.claimMessage(id, now, leaseUntil, leaseToken);
  }

  completeRound(id: string, leaseToken: string, attempts: AttemptRecord[], outcome: RoundOutcome): Promise<boolean> {
    return this.delivery.completeRound(id, leaseToken, attempts, outcome);
  }

  listDeliverable(limit: number): Promise<DeliverableMessage[]> {
    return this.delivery.listDeliverable(limit);
  }

  countPending(environmentId: string, providerConfigKey: string, limit: number): Promise<number> {
    return this.delivery.countPending(environmentId, providerConfigKey, limit);
  }

  findDeliverable(id: string): Promise<DeliverableMessage | null> {
    return this.delivery.findDeliverable(id);
  }

  replayMessage(environmentId: string, id: string, now: number): Promise<MessageRecord | null> {
    return this.delivery.replayMessage(environmentId, id, now);
  }

  replayFailed(environmentId: string, since: number, now: number): Promise<string[]> {
    return this.delivery.replayFailed(environmentId, since, now);
  }

  claimNotificationKey(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.delivery.claimNotificationKey(environmentId, channelId, messageNumber, notificationId, now);
  }

  findNotificationKey(environmentId: string, channelId: string, messageNumber: number): Promise<string | null> {
    return this.delivery.findNotificationKey(environmentId, channelId, messageNumber);
  }

  claimDedupeKey(
    environmentId: string,
    providerConfigKey: string,
    key: string,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.delivery.claimDedupeKey(environmentId, providerConfigKey, key, notificationId, now);
  }

  findDedupeKey(environmentId: string, providerConfigKey: string, key: string): Promise<string | null> {
    return this.delivery.findDedupeKey(environmentId, providerConfigKey, key);
  }

  pruneNotificationKeys(before: number): Promise<number> {
    return this.delivery.pruneNotificationKeys(before);
  }

  pruneFinishedMessages(before: number, limit: number): Promise<number> {
    return this.delivery.pruneFinishedMessages(before, limit);
  }
}
