import type { ManagedSlotStore } from "./managed-store.ts";
import type { ChannelFilter, ChannelRecord, ChannelTokenRow, ChannelWatch } from "./records.ts";

/**
 * The channel registry: one record per (environment, channel id). Times come in as arguments, so
 * that the rules of the lifecycle are the caller's clock's, never the database's.
 */
export interface ChannelStore {
  /** The managed channels' schedule, kept with the registry. */
  readonly managed: ManagedSlotStore;
  /**
   * Records a successful watch: inserts the channel, or updates the one under the same id (see
   * `applyWatch`). `applied` is false when the watch was a late replay and nothing changed.
   */
  recordWatch(watch: ChannelWatch): Promise<{ applied: boolean; channel: ChannelRecord }>;
  /**
   * Marks the channel stopped, only when `resourceId` is the one it was created with and it is not
   * stopped already (spec: lifecycle, "Valid pair"). Returns whether it did.
   */
  recordStop(environmentId: string, channelId: string, resourceId: string, at: number): Promise<boolean>;
  /**
   * Records a renewal in place: sets the expiration to `expiration` only when the channel is active
   * at `at` and the new expiration is later than the recorded one, or none was recorded (a late replay
   * of an older renewal never shortens it); a changed expiration clears expiryWarnedAt. Returns
   * whether it did.
   */
  recordRenewal(environmentId: string, channelId: string, expiration: number, at: number): Promise<boolean>;
  /**
   * Raises lastMessageNumber to `messageNumber` (never lowers it). Returns the channel as it reads at
   * `at`, or null when the channel is not in the registry.
   */
  recordNotification(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    at: number,
  ): Promise<ChannelRecord | null>;
  /** The channel as it reads at `now` (effective state), or null. */
  get(environmentId: string, channelId: string, now: number): Promise<ChannelRecord | null>;
  /** Channels matching `filter` at `now`, newest first, with their effective state. */
  list(environmentId: string, filter: ChannelFilter, now: number): Promise<ChannelRecord[]>;
  /**
   * Records that the customer is being warned about the channel's expiry: sets expiryWarnedAt to `at`
   * only when the channel is active and was not warned about yet. Returns whether it did, so that
   * of several sweepers exactly one warns.
   */
  claimExpiryWarning(environmentId: string, channelId: string, at: number): Promise<boolean>;
  /** Undoes `claimExpiryWarning(…, at)` when the warning could not be sent, so that a later sweep retries. */
  releaseExpiryWarning(environmentId: string, channelId: string, at: number): Promise<void>;
  /** Writes `expired` on every active channel whose expiration is at or before `now`; returns them, newest first. */
  markExpired(environmentId: string, now: number): Promise<ChannelRecord[]>;
  /**
   * Channels with a token, in (environment, id) order after `after`, at most `limit`: all of them, or
   * (`unsealedOnly`) those stored before tokens were sealed (no digest).
   */
  tokenRows(
    after: { environmentId: string; id: string } | null,
    limit: number,
    unsealedOnly: boolean,
  ): Promise<ChannelTokenRow[]>;
  /** Replaces a channel's token and digest when its token is still `expected` (compare-and-set). */
  replaceToken(row: ChannelTokenRow, expected: string): Promise<boolean>;
  close(): Promise<void>;
}
