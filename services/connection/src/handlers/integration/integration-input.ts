import type { UpstreamOverrides } from "@junction/contracts/connection/v1/connection_service_pb";
import { invalidArgument } from "@junction/platform";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { integrationSettingsProblems, MAX_SETTING_VALUE_CHARS, type ProviderAdapter } from "@junction/providers";
import { INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE } from "@junction/public-api/limits";
import { errors } from "../../errors.ts";
import type { UpstreamOverridesRecord } from "../../store/records.ts";

/** Refuses an integration key outside the public API's pattern, naming the field `path`. */
export function checkUniqueKey(key: string, path = "unique_key"): void {
  if (!INTEGRATION_KEY_PATTERN.test(key)) throw errors.invalidField(path, INTEGRATION_KEY_RULE);
}

/** The REST names of an integration's URL overrides, for the field an error names. */
const OVERRIDE_FIELDS = {
  baseUrl: "upstream_overrides.base_url",
  authorizationUrl: "upstream_overrides.authorization_url",
  tokenUrl: "upstream_overrides.token_url",
} as const;

/** The URL overrides as stored (trailing slashes dropped), each checked by the address policy. */
export function checkOverrides(
  o: UpstreamOverrides | undefined,
  policy: OutboundAddressPolicy,
): UpstreamOverridesRecord {
  const out: UpstreamOverridesRecord = {};
  if (!o) return out;
  for (const [field, value] of [
    ["baseUrl", o.baseUrl],
    ["authorizationUrl", o.authorizationUrl],
    ["tokenUrl", o.tokenUrl],
  ] as const) {
    if (!value) continue;
    // Scheme and literal host by the address policy; DNS when fetched.
    if (!policy.checkSaved(value, OVERRIDE_FIELDS[field])) {
      throw errors.invalidField(`overrides.${field}`, "must be an absolute http(s) URL");
    }
    out[field] = value.replace(/\/+$/, "");
  }
  return out;
}

/**
 * Refuses provider settings its adapter does not declare, values over the bound, and managed channels
 * its adapter cannot create (the gateway checks the same at the edge; this holds for every caller).
 */
export function checkProviderSettings(
  adapter: ProviderAdapter | undefined,
  settings: Readonly<Record<string, string>>,
  managedChannels: boolean,
  policy: OutboundAddressPolicy,
): void {
  const [problem] = integrationSettingsProblems(adapter, { settings, managedChannels });
  if (problem) throw invalidArgument(problem.code, `${problem.path} ${problem.message}.`, [problem]);
  // A setting Junction fetches (a JWKS URL): https, or http to a host the operator allowed.
  for (const setting of adapter?.integrationSettings ?? []) {
    const value = settings[setting.key];
    if (setting.isUrl && value) policy.checkSaved(value, `provider_settings.${setting.key}`, { httpsOnly: true });
  }
  for (const [key, value] of Object.entries(settings)) {
    if (value.length > MAX_SETTING_VALUE_CHARS) {
      throw errors.invalidField(`provider_settings.${key}`, `must be at most ${MAX_SETTING_VALUE_CHARS} characters`);
    }
  }
}

/** Settings as stored: empty values left out (they mean "the adapter's default"). */
export const nonEmpty = (settings: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== ""));
