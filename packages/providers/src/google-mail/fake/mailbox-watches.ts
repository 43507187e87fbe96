import type { PubSub } from "./pubsub.ts";

/** A mailbox's watch (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users/watch). */
export interface MailboxWatch {
  email: string;
  topicName: string;
  labelIds: string[];
  /** Gmail's `labelFilterBehavior`: notify on changes with (include) or without (exclude) the labels. */
  labelFilterBehavior: "include" | "exclude";
  /** The mailbox's history id when the watch was made. */
  historyId: number;
  /** Unix ms, by the fake's clock. */
  expiration: number;
  createdAt: number;
  stoppedAt?: number;
}

export interface MailboxWatchView extends MailboxWatch {
  /** Worked out against the fake's clock now. */
  state: "active" | "expired" | "stopped";
}

/**
 * "You must re-call watch at least every 7 days or else you will stop receiving updates"
 * (https://developers.google.com/workspace/gmail/api/guides/push#renewing_mailbox_watch).
 */
export const WATCH_TTL_MS = 7 * 24 * 3600 * 1000;

/** One watch per mailbox: watching again replaces it, stop ends it; every one ever made is kept for views. */
export class MailboxWatches {
  private readonly current = new Map<string, MailboxWatch>();
  private readonly all: MailboxWatch[] = [];

  constructor(private readonly now: () => number) {}

  watch(fields: Omit<MailboxWatch, "expiration" | "createdAt" | "stoppedAt">): MailboxWatch {
    const now = this.now();
    const previous = this.current.get(fields.email);
    if (previous) previous.stoppedAt = now;
    const watch: MailboxWatch = { ...fields, expiration: now + WATCH_TTL_MS, createdAt: now };
    this.current.set(fields.email, watch);
    this.all.push(watch);
    return watch;
  }

  /** Ends the mailbox's watch; true when there was a live one. */
  stop(email: string): boolean {
    const watch = this.active(email);
    this.current.delete(email);
    if (watch) watch.stoppedAt = this.now();
    return watch !== undefined;
  }

  active(email: string): MailboxWatch | undefined {
    const watch = this.current.get(email);
    return watch && watch.stoppedAt === undefined && watch.expiration > this.now() ? watch : undefined;
  }

  views(): MailboxWatchView[] {
    const now = this.now();
    return this.all.map((w) => ({
      ...w,
      state: w.stoppedAt !== undefined ? "stopped" : w.expiration > now ? "active" : "expired",
    }));
  }
}

/** Whether a change with these labels concerns the watch (no labels on the watch: every change). */
function concerns(watch: MailboxWatch, labelIds: readonly string[]): boolean {
  if (watch.labelIds.length === 0) return true;
  const hit = labelIds.some((label) => watch.labelIds.includes(label));
  return watch.labelFilterBehavior === "include" ? hit : !hit;
}

/**
 * After a mailbox change (its history id already advanced): Gmail publishes `{emailAddress, historyId}`
 * on the watch's topic when the change concerns the watch. Returns the Pub/Sub message id, or "".
 */
export function publishMailboxChange(
  watches: MailboxWatches,
  pubsub: PubSub,
  mailbox: { email: string; historyId: number },
  labelIds: readonly string[],
): string {
  const watch = watches.active(mailbox.email);
  if (!watch || !concerns(watch, labelIds)) return "";
  return pubsub.publish(watch.topicName, mailbox.email, mailbox.historyId);
}
