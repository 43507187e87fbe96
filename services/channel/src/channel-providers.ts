import { type ChannelAdapter, providerAdapter } from "@junction/providers";

/** What the channel service needs of a provider's notification channels: its adapter's channel part. */
export type ChannelProvider = ChannelAdapter;

/** The provider's channel facts, or undefined for a provider without notification channels. */
export function channelProvider(provider: string): ChannelProvider | undefined {
  return providerAdapter(provider)?.channels;
}
