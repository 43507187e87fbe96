import { DecryptionError } from "@junction/platform";
import type { ChannelTokens } from "./channel-tokens.ts";
import type { ChannelStore } from "./store/store.ts";

/** What one pass over the channel tokens did. */
export interface ResealCounts {
  rewritten: number;
  current: number;
  /** Changed by a watch between the read and the swap (sealed under the current key then): left alone. */
  raced: number;
  /** Channels whose token does not open (another row's ciphertext, altered, or a removed key), named. */
  unreadable: string[];
  interrupted: boolean;
}

/**
 * Seals channel tokens under the current key: every row not yet current (`junction rekey`), or only the
 * rows stored before tokens were sealed (`unsealedOnly`, at the service's start). One compare-and-set
 * per row, so it can run beside the service, stop anywhere and run again.
 */
export async function resealChannelTokens(
  store: ChannelStore,
  tokens: ChannelTokens,
  options: { unsealedOnly?: boolean; batchSize?: number; shouldStop?: () => boolean } = {},
): Promise<ResealCounts> {
  const batchSize = options.batchSize ?? 200;
  const counts: ResealCounts = { rewritten: 0, current: 0, raced: 0, unreadable: [], interrupted: false };
  let after: { environmentId: string; id: string } | null = null;
  for (;;) {
    const batch = await store.tokenRows(after, batchSize, options.unsealedOnly ?? false);
    for (const row of batch) {
      if (options.shouldStop?.()) return { ...counts, interrupted: true };
      let next: ReturnType<ChannelTokens["resealed"]>;
      try {
        next = tokens.resealed(row);
      } catch (err) {
        if (!(err instanceof DecryptionError)) throw err;
        counts.unreadable.push(`channel ${row.id}`);
        continue;
      }
      if (next === null) counts.current++;
      else if (await store.replaceToken({ ...row, ...next }, row.token)) counts.rewritten++;
      else counts.raced++;
    }
    if (batch.length < batchSize) return counts;
    after = batch[batch.length - 1] as { environmentId: string; id: string };
  }
}
