/**
 * What Junction knows of each provider's notification channels. Provider-specific facts live here
 * and nowhere else in the channel service.
 */
export interface ChannelProvider {
  /**
   * The stop call's path under the integration's base URL (spec: Upstream calendar API calls:
   * POST {calendar_api_base}/v3/channels/stop; the calendar template's paths start at /calendar).
   */
  stopPath: string;
}

const PROVIDERS: Readonly<Record<string, ChannelProvider>> = {
  "google-calendar": { stopPath: "/calendar/v3/channels/stop" },
};

/** The provider's channel facts, or undefined for a provider without notification channels. */
export function channelProvider(provider: string): ChannelProvider | undefined {
  return Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
}
