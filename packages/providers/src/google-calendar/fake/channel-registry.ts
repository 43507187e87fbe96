import { randomId } from "../../fake-kit/random-id.ts";

export type ChannelState = "active" | "stopped" | "expired";

export interface ChannelRecord {
  id: string;
  resourceId: string;
  /** The watched calendar, decoded and with `primary` resolved to the owner's email. */
  calendarId: string;
  resourceUri: string;
  address: string;
  /** Unix ms; by the injected clock the channel is expired once now >= expiration. */
  expiration: number;
  type: string;
  token?: string;
  params?: Record<string, string>;
  clientId: string;
  ownerEmail: string;
  createdAt: number;
  stoppedAt?: number;
  /** Number of the last notification sent on this channel (sync is 1). */
  messageNumber: number;
}

/** A channel as tests see it, with its state worked out against the clock at read time. */
export type ChannelView = Readonly<ChannelRecord> & { state: ChannelState };

/** Every notification channel ever created, in creation order. */
export class ChannelRegistry {
  private readonly channels: ChannelRecord[] = [];
  private readonly resourceIds = new Map<string, string>();

  constructor(private readonly now: () => number) {}

  stateOf(channel: ChannelRecord): ChannelState {
    if (channel.stoppedAt !== undefined) return "stopped";
    return channel.expiration <= this.now() ? "expired" : "active";
  }

  /**
   * Google's resourceId names the watched resource, not the channel, so every channel on one calendar
   * shares it; only the (id, resourceId) pair identifies a channel.
   */
  resourceIdFor(calendarId: string): string {
    let resourceId = this.resourceIds.get(calendarId);
    if (!resourceId) {
      resourceId = randomId("", 20);
      this.resourceIds.set(calendarId, resourceId);
    }
    return resourceId;
  }

  /** Channel ids must be unique among live channels; a stopped or expired channel's id may be reused. */
  hasActive(id: string): boolean {
    return this.channels.some((c) => c.id === id && this.stateOf(c) === "active");
  }

  add(channel: ChannelRecord): void {
    this.channels.push(channel);
  }

  /** The most recent channel with this id, whatever its state. */
  latest(id: string): ChannelRecord | undefined {
    return this.channels.findLast((c) => c.id === id);
  }

  /** Stops the live channel matching the pair; false when there is none (Google answers 404). */
  stop(id: string, resourceId: string, clientId: string): boolean {
    const channel = this.channels.find(
      (c) => c.id === id && c.resourceId === resourceId && c.clientId === clientId && this.stateOf(c) === "active",
    );
    if (!channel) return false;
    channel.stoppedAt = this.now();
    return true;
  }

  activeOn(calendarId: string): ChannelRecord[] {
    return this.channels.filter((c) => c.calendarId === calendarId && this.stateOf(c) === "active");
  }

  views(): ChannelView[] {
    return this.channels.map((c) => ({ ...c, state: this.stateOf(c) }));
  }
}
