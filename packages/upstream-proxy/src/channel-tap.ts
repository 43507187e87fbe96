import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { readBytesLimited } from "@junction/platform";
import type { ChannelAdapter } from "@junction/providers";

/** Channel bodies are small JSON objects; a larger one is not read (and the call is reported without it). */
export const CHANNEL_BODY_LIMIT = 64 * 1024;

/** The calls the channel registry follows (ReportChannelCall takes exactly these). */
const TAPPED = new Set<ChannelCall>([ChannelCall.WATCH, ChannelCall.RENEW, ChannelCall.STOP]);

/**
 * Whether a proxied call creates, renews or stops a notification channel, as the channel adapter of
 * the integration's provider recognises it (none: the provider has no channels). A renewal is
 * tapped too: without it the registry keeps the first expiration of a channel extended in place.
 */
export function channelCallOf(
  method: string,
  path: string,
  channels: ChannelAdapter | undefined,
): ChannelCall | undefined {
  const call = channels?.callOf(method, path);
  return call !== undefined && TAPPED.has(call) ? call : undefined;
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
