/** Stored shapes of managed channels: one slot per connection. Times are Unix milliseconds. */

/** The connection a managed slot belongs to. */
export interface ManagedSlotKey {
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
}

/**
 * Junction's own schedule for one connection's managed channel: which channel it keeps active, when
 * it acts next (create or renew), and how the last attempt went. The schedule lives here, not in
 * timers, so that a restarted process, or another one, picks it up.
 */
export interface ManagedSlot extends ManagedSlotKey {
  /** The channel Junction keeps active for the connection; null before the first creation. */
  channelId: string | null;
  /**
   * A channel a renewal replaced whose stop failed upstream: stopped by the next run (due soon, reason
   * "stop_replaced"), so that only one stays active. Null when none.
   */
  staleChannelId: string | null;
  /** When the next creation or renewal is due; null when nothing is (stopped, or the connection gone). */
  dueAt: number | null;
  /** Why the next action was scheduled ("connection_created", "renewal", "removed", ...) or why none is. */
  reason: string;
  /** Failed attempts since the last success (the backoff counts from these). */
  attempts: number;
  /** The last failure, `code: message` (never a token); null after a success. */
  lastError: string | null;
  /** Bumped by every schedule and cancel, so that a run's outcome does not overwrite a newer decision. */
  generation: number;
  /** The process running the slot now, and until when its claim holds. */
  claimedBy: string | null;
  claimedUntil: number | null;
  updatedAt: number;
}

/** What a run leaves behind: `finishManaged`'s input. */
export interface ManagedOutcome {
  /** The channel now kept active; undefined keeps the slot's. */
  channelId?: string | null;
  /** The replaced channel still to stop; undefined keeps the slot's, null clears it. */
  staleChannelId?: string | null;
  /** The next action's time (applied only when the slot was not rescheduled during the run). */
  dueAt: number | null;
  reason: string;
  /** Set when the run failed: counted in `attempts`, kept in `lastError`. */
  error?: string;
}

/** Reason of a slot due only to stop the channel a renewal replaced (its first stop failed). */
export const STOP_REPLACED_REASON = "stop_replaced";

/** Reason of a slot whose connection's channels were stopped (deleted connection, rollback): nothing is due. */
export const STOPPED_REASON = "stopped";
