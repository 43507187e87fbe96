import type { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { readBytesLimited } from "@junction/platform";
import { channelAdapters } from "@junction/providers";

/** Channel bodies are small JSON objects; a larger one is not read (and the call is reported without it). */
export const CHANNEL_BODY_LIMIT = 64 * 1024;

/**
 * Whether a proxied call creates or stops a notification channel, on a provider that has channels: the
 * provider adapters' channel parts recognise their own calls (no allocation; one adapter today).
 */
export function channelCallOf(method: string, path: string, providerHasChannels: boolean): ChannelCall | undefined {
  if (!providerHasChannels) return undefined;
  const adapters = channelAdapters();
  for (let i = 0; i < adapters.length; i++) {
    const call = adapters[i]?.callOf(method, path);
    if (call !== undefined) return call;
  }
  return undefined;
}

/**
 * Splits a stream in two: one branch to pass on, and the first CHANNEL_BODY_LIMIT bytes of the other,
 * resolved when that branch ends (empty when the body was larger, or failed). Reading the copy stops
 * at the limit, so the tee never holds more than about the limit for the slower branch.
 */
export function teeBounded(stream: ReadableStream<Uint8Array>): [ReadableStream<Uint8Array>, Promise<Uint8Array>] {
  const [pass, copy] = stream.tee();
  return [pass, readBounded(copy)];
}

/** Reads a stream to its end, or to the limit (then empty). Never throws. */
export async function readBounded(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  try {
    return (await readBytesLimited(stream, CHANNEL_BODY_LIMIT)) ?? new Uint8Array(0);
  } catch {
    return new Uint8Array(0);
  }
}
