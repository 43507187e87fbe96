import { Code } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";

/** One open change feed: its signal ends it (the service stopping), `release` gives its place back. */
export interface FeedSlot {
  signal: AbortSignal;
  release(): void;
}

/**
 * The change feeds open in this process, per environment, held to a maximum: a feed holds a stream
 * and a store query per wake-up, so an app that opens them in a loop is refused rather than served.
 */
export class RecordFeeds {
  private readonly open = new Map<string, Set<AbortController>>();

  constructor(private readonly maxPerEnvironment: number) {}

  /** A place for a new feed of the environment; ResourceExhausted `too_many_feeds` when none is left. */
  acquire(environmentId: string): FeedSlot {
    let set = this.open.get(environmentId);
    if (!set) {
      set = new Set();
      this.open.set(environmentId, set);
    }
    if (set.size >= this.maxPerEnvironment) {
      throw new JunctionError(
        "too_many_feeds",
        `The environment has ${set.size} change feeds open, the most allowed (JUNCTION_SCRIPTS_RECORD_FEEDS_MAX); close one or retry later.`,
        Code.ResourceExhausted,
      );
    }
    const controller = new AbortController();
    set.add(controller);
    const own = set;
    return {
      signal: controller.signal,
      // Idempotent: called on cancellation and again when the feed's generator ends.
      release: () => {
        own.delete(controller);
        if (own.size === 0 && this.open.get(environmentId) === own) this.open.delete(environmentId);
      },
    };
  }

  /** Feeds open (of one environment, or all). */
  count(environmentId?: string): number {
    if (environmentId !== undefined) return this.open.get(environmentId)?.size ?? 0;
    let n = 0;
    for (const set of this.open.values()) n += set.size;
    return n;
  }

  /** Ends every feed (the service stops). */
  closeAll(): void {
    for (const set of this.open.values()) for (const c of set) c.abort();
  }
}
