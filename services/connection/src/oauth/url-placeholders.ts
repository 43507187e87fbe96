import {
  describePlaceholderProblem,
  fillPlaceholders,
  placeholderKeys,
  type ProviderAdapter,
  type ProviderDefinition,
  providerSettings,
} from "@junction/providers";
import { errors } from "../errors.ts";

/**
 * The placeholder keys a connection fills (its connection config: a connect field the user gives, or a
 * field read from the token answer or a request after it); every other key is an integration's provider setting.
 */
export function connectionKeys(
  definition: Pick<ProviderDefinition, "connectFields" | "connectionConfig">,
): Set<string> {
  return new Set([...definition.connectFields.map((f) => f.key), ...definition.connectionConfig.map((f) => f.key)]);
}

/**
 * Fills `{key}` placeholders of a URL (a template's, or an operator override): a connection's keys from
 * its connection config, the others from the integration's provider settings, the adapter's defaults
 * applied (a tenant in Microsoft's URLs). Throws `invalid_request` naming the provider and the setting or
 * connection-config field when one is missing or unsafe, so nothing is requested from a URL that points
 * elsewhere than the definition says.
 */
export function fillUrlPlaceholders(
  url: string,
  adapter: ProviderAdapter | undefined,
  stored: Readonly<Record<string, string>>,
  field: string,
  connectionConfig: Readonly<Record<string, unknown>> = {},
): string {
  if (!url.includes("{") && !url.includes("}")) return url;
  const own = adapter ? connectionKeys(adapter) : new Set<string>();
  const values: Record<string, unknown> = { ...providerSettings(adapter, stored) };
  for (const key of own) values[key] = connectionConfig[key];
  const filled = fillPlaceholders(url, values);
  if (filled.ok) return filled.url;
  if (filled.problem === "malformed") throw errors.invalidField(field, describePlaceholderProblem("malformed"));
  const path = own.has(filled.key) ? `connection_config.${filled.key}` : `provider_settings.${filled.key}`;
  const who = adapter ? `provider "${adapter.name}": ` : "";
  const todo =
    filled.problem === "missing" && own.has(filled.key)
      ? " (give it in the connect session's integrations_config_defaults.<integration>.connection_config, or the connect page's form)"
      : "";
  throw errors.invalidField(path, `${who}${describePlaceholderProblem(filled.problem)}${todo}`);
}

/**
 * Checks at integration create and update that the OAuth URLs in force (the operator's overrides over
 * the template's) fill from the settings the integration will hold; a connection's own keys are left to
 * each connection. Throws as `fillUrlPlaceholders`.
 */
export function checkOAuthUrls(
  adapter: ProviderAdapter,
  overrides: { authorizationUrl?: string; tokenUrl?: string },
  settings: Readonly<Record<string, string>>,
): void {
  const own = connectionKeys(adapter);
  for (const [url, field] of [
    [overrides.authorizationUrl || adapter.authorizationUrl, "authorization_url"],
    [overrides.tokenUrl || adapter.tokenUrl, "token_url"],
    // A token URL override replaces the refresh URL too (see OAuthClient.refreshUrl).
    [overrides.tokenUrl ? "" : adapter.refreshUrl, "refresh_url"],
  ] as const) {
    // A connection's key is filled with a sample of its kind: a whole URL where it starts the URL.
    const sample: Record<string, string> = {};
    for (const key of placeholderKeys(url)) {
      if (own.has(key)) sample[key] = url.startsWith(`{${key}}`) ? "https://sample.invalid" : "sample";
    }
    fillUrlPlaceholders(url, adapter, settings, field, sample);
  }
}
