/** Which sync of which connection a schedule row is about. */
export interface ScheduleKey {
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  connectionId: string;
}

/**
 * The schedule of one sync for one connection (spec: Triggers): when it is next due, and who is
 * running it. `nextDueAt` is null for a sync that does not start by itself (`autoStart: false`): it
 * runs only when triggered. The lease says a run is in progress: a due time that finds it held is
 * skipped, and a trigger queues a follow-up run, so that a sync never overlaps itself. A paused sync
 * (and one that does not start by itself until started) has no `nextDueAt`.
 */
export interface ScheduleEntry extends ScheduleKey {
  nextDueAt: number | null;
  /** Instance holding the run lease, null when no run is in progress. */
  leaseHolder: string | null;
  /** The lease lapses then (service clock), in case its holder died mid-run. */
  leaseUntil: number | null;
  /** Start of the last run that succeeded: `nango.lastSyncDate` of an incremental run. */
  lastSuccessAt: number | null;
  /** A run asked for while one was in progress, to start when it ends; null when none is queued. */
  followUp: FollowUpMode | null;
  /**
   * When the follow-up is for anyone to take: when the lease it waited for lapses (its holder takes
   * it at once when the run ends; another process only if the holder died).
   */
  followUpAt: number | null;
  /** This connection's own frequency (PUT /sync/update-connection-frequency), null for the script's. */
  frequency: { text: string; ms: number } | null;
}

/** How a queued follow-up runs: a full refresh wins over an incremental run queued with it. */
export type FollowUpMode = "incremental" | "full_refresh";

/** A run lease to take: who, and until when. */
export interface Lease {
  holder: string;
  until: number;
}

/** How a claim of a due time went. */
export type ClaimOutcome =
  /** Ours: the due time moved on and the lease is ours; run it. */
  | "claimed"
  /** The due time is still there but a run is in progress: skip it. */
  | "busy"
  /** Another instance claimed or skipped it first (or the row is gone): nothing to do. */
  | "lost";

/** Settings of a deployed script that are not part of its source. */
export interface ScriptOptions {
  /** Matched notifications are forwarded as well as handed to onWebhook. */
  forwardWebhooksToo: boolean;
}

export const scheduleKeyString = (k: ScheduleKey) =>
  // Ids cannot hold a line feed (ids are printable ASCII), so the parts cannot run into each other.
  `${k.environmentId}\n${k.providerConfigKey}\n${k.scriptName}\n${k.connectionId}`;
