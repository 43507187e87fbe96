import type { ChannelRecord } from "./channel-registry.ts";
import type { NotificationHeaderStyle } from "./options.ts";
import { notificationHeaders } from "./notification-headers.ts";
import type { StateChanges } from "../../fake-kit/state-changes.ts";

/** One delivery attempt, recorded when it finishes (successfully or not). */
export interface NotificationAttempt {
  channelId: string;
  resourceId: string;
  address: string;
  resourceState: string;
  messageNumber: number;
  headers: Record<string, string>;
  /** HTTP status from the receiver; null when the request failed or timed out. */
  status: number | null;
  error?: string;
  /** Injected-clock time the notification was queued. */
  at: number;
}

/**
 * Delivers push notifications: POST, empty body, one attempt each (Google's retries are not modelled).
 * Deliveries on one channel go out one at a time so receivers see message numbers in order.
 */
export class NotificationSender {
  readonly attempts: NotificationAttempt[] = [];
  private readonly queues = new Map<string, Promise<void>>();
  private readonly closing = new AbortController();

  constructor(
    private readonly settings: { style: NotificationHeaderStyle; timeoutMs: number; now: () => number },
    private readonly changes: StateChanges,
  ) {}

  /** Queues a notification and returns its message number; never waits for the receiver. */
  send(channel: ChannelRecord, resourceState: string): number {
    channel.messageNumber += 1;
    const messageNumber = channel.messageNumber;
    const headers = notificationHeaders(channel, resourceState, messageNumber, this.settings.style);
    const attempt: Omit<NotificationAttempt, "status"> = {
      channelId: channel.id,
      resourceId: channel.resourceId,
      address: channel.address,
      resourceState,
      messageNumber,
      headers,
      at: this.settings.now(),
    };
    const key = `${channel.id}\n${channel.resourceId}\n${channel.createdAt}`;
    // A macrotask first, so the watch response leaves before the sync notification, as with Google.
    const previous = this.queues.get(key) ?? new Promise<void>((resolve) => setTimeout(resolve, 0));
    const next = previous.then(() => this.deliver(attempt));
    this.queues.set(key, next);
    void next.finally(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
    return messageNumber;
  }

  private async deliver(attempt: Omit<NotificationAttempt, "status">): Promise<void> {
    if (this.closing.signal.aborted) return;
    let status: number | null = null;
    let error: string | undefined;
    try {
      const response = await fetch(attempt.address, {
        method: "POST",
        headers: attempt.headers,
        body: "",
        redirect: "manual",
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (cause) {
      error = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    }
    if (this.closing.signal.aborted) return;
    this.attempts.push({ ...attempt, status, ...(error !== undefined ? { error } : {}) });
    this.changes.changed();
  }

  /** Resolves when nothing is queued or in flight. */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  close(): void {
    this.closing.abort();
  }
}
