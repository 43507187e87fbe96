import type { ProviderAdapter } from "./adapter.ts";

/** The longest value a provider setting may hold (a URL, a topic path, a tenant: all far shorter). */
export const MAX_SETTING_VALUE_CHARS = 2048;

/** Why an integration's provider settings or `managed_channels` were refused; `path` names the field. */
export interface IntegrationSettingsProblem {
  code: "unknown_provider_setting" | "managed_channels_unsupported" | "invalid_provider_setting";
  path: string;
  message: string;
}

/**
 * What is wrong with an integration's `provider_settings` and `managed_channels` for its provider:
 * a key its adapter does not declare, a URL setting whose value is not an absolute https URL, or managed channels for a provider whose channels Junction
 * cannot create. Empty when both are fine. Value lengths are the caller's schema's (one bound for all).
 */
export function integrationSettingsProblems(
  adapter: ProviderAdapter | undefined,
  input: { settings?: Readonly<Record<string, string>>; managedChannels?: boolean },
): IntegrationSettingsProblem[] {
  const problems: IntegrationSettingsProblem[] = [];
  const name = adapter?.name ?? "this provider";
  const known = (adapter?.integrationSettings ?? []).map((s) => s.key);
  for (const [key, value] of Object.entries(input.settings ?? {})) {
    const declared = adapter?.integrationSettings?.find((s) => s.key === key);
    if (declared?.isUrl && value !== "" && !isAbsoluteUrl(value)) {
      problems.push({
        code: "invalid_provider_setting",
        path: `provider_settings.${key}`,
        message: "must be an absolute https URL (https://host/path; http only to a host the operator allows)",
      });
    }
    if (known.includes(key)) continue;
    problems.push({
      code: "unknown_provider_setting",
      path: `provider_settings.${key}`,
      message:
        known.length > 0
          ? `is not a setting of ${name}; it takes ${known.join(", ")}`
          : `is not a setting of ${name}; it takes none`,
    });
  }
  if (input.managedChannels && !adapter?.channels?.create) {
    problems.push({
      code: "managed_channels_unsupported",
      path: "managed_channels",
      message: adapter?.channels
        ? `cannot be on: Junction cannot create ${name}'s ${adapter.channels.label}s itself (scripts do)`
        : `cannot be on: ${name} has no notification channels`,
    });
  }
  return problems;
}

/**
 * Whether the value is a URL at all ("not a url" and "/oauth2/v3/certs" are not). Its scheme and host are
 * the address policy's, where the setting is saved (https, or http to a host the operator allowed).
 */
function isAbsoluteUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
