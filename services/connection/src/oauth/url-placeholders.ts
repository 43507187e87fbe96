import { providerSettings, type ProviderAdapter } from "@junction/providers";
import { errors } from "../errors.ts";

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;
/** A value may only fill one path segment: unreserved characters (RFC 3986), never "." or "..". */
const SEGMENT = /^[A-Za-z0-9._~-]{1,255}$/;

/**
 * Fills `{key}` placeholders of an OAuth URL (a template's, or an operator override) from the
 * integration's provider settings, the adapter's defaults applied (a tenant in Microsoft's URLs).
 * Throws `invalid_request` naming the setting when one is missing or is not a safe path segment, so
 * an authorization never starts on a URL that points elsewhere than the template says.
 */
export function fillUrlPlaceholders(
  url: string,
  adapter: ProviderAdapter | undefined,
  stored: Readonly<Record<string, string>>,
  field: string,
): string {
  if (!url.includes("{") && !url.includes("}")) return url;
  const settings = providerSettings(adapter, stored);
  const filled = url.replace(PLACEHOLDER, (_whole, key: string) => {
    const value = settings[key];
    const path = `provider_settings.${key}`;
    if (value === undefined || value === "")
      throw errors.invalidField(path, "is required by the provider's OAuth URLs");
    if (!SEGMENT.test(value) || value === "." || value === "..") {
      throw errors.invalidField(path, "must be one URL path segment: letters, digits and . _ ~ - only");
    }
    return value;
  });
  if (filled.includes("{") || filled.includes("}")) {
    throw errors.invalidField(field, "has a placeholder that is not {name} (letters, digits and _)");
  }
  return filled;
}

/**
 * Checks at integration create and update that the OAuth URLs in force (the operator's overrides over
 * the template's) fill from the settings the integration will hold; throws as `fillUrlPlaceholders`.
 */
export function checkOAuthUrls(
  adapter: ProviderAdapter,
  overrides: { authorizationUrl?: string; tokenUrl?: string },
  settings: Readonly<Record<string, string>>,
): void {
  fillUrlPlaceholders(overrides.authorizationUrl || adapter.authorizationUrl, adapter, settings, "authorization_url");
  fillUrlPlaceholders(overrides.tokenUrl || adapter.tokenUrl, adapter, settings, "token_url");
}
