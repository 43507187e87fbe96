import { invalidArgument } from "@junction/platform";
import { integrationSettingsProblems, MAX_SETTING_VALUE_CHARS, providerAdapter } from "@junction/providers";
import { z } from "zod";

/** `provider_settings`: the provider's own settings by key (its adapter's `integrationSettings`). */
export const providerSettingsSchema = z
  .record(
    z.string().min(1).max(64),
    z.string().max(MAX_SETTING_VALUE_CHARS, `must be at most ${MAX_SETTING_VALUE_CHARS} characters`),
  )
  .describe(
    "The provider's own settings by key (GET /providers/{name} lists them as `integration_settings`); an empty value means the default. On update, replaces them all.",
  );

export const managedChannelsSchema = z
  .boolean()
  .describe(
    "Junction itself creates, renews and stops the connections' notification channels (off: customer scripts do). Only for providers whose `channels.manageable` is true.",
  );

export const strictChannelsSchema = z
  .boolean()
  .describe(
    "Notifications whose channel (subscription) the channel registry does not hold for this integration are refused at intake (a flood of made-up channel ids stores nothing). Never set: follows `managed_channels`.",
  );

/**
 * Refuses, at the edge, a `provider_settings` key the provider does not take (400
 * `unknown_provider_setting`, naming the keys it takes) and `managed_channels` on for a provider whose
 * channels Junction cannot create (400 `managed_channels_unsupported`).
 */
export function checkIntegrationSettings(
  provider: string,
  input: { provider_settings?: Record<string, string>; managed_channels?: boolean },
): void {
  const adapter = providerAdapter(provider);
  // An unknown provider is the connection service's to refuse (unknown_provider).
  if (!adapter) return;
  const problems = integrationSettingsProblems(adapter, {
    settings: input.provider_settings,
    managedChannels: input.managed_channels,
  });
  const first = problems[0];
  if (!first) return;
  const same = problems.filter((p) => p.code === first.code);
  throw invalidArgument(
    first.code,
    `Invalid request body: ${same.map((p) => `${p.path} ${p.message}`).join("; ")}.`,
    same.map((p) => ({ location: "body" as const, path: p.path, message: p.message })),
  );
}
