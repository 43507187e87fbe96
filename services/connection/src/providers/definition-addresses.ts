import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { PLACEHOLDER_PATTERN } from "@junction/providers";

/**
 * Every URL of a provider definition Junction will fetch (`baseUrl`, `authorizationUrl`, `tokenUrl`,
 * `refreshUrl`, `identity.url`, `connectionConfig[].url`), checked by the outbound address policy when
 * the definition is saved (POST /providers) or loaded (`{data dir}/providers/*.json`), before its schema:
 * a `file:` URL or a private host is the policy's refusal, wherever it is written. `{key}` placeholders
 * inside a URL are checked with a sample value; a URL that starts with one (`{instance_url}/services`)
 * takes its host from the connection config, checked when that is saved. Throws AddressRefusedError.
 */
export function checkDefinitionAddresses(input: Record<string, unknown>, policy: OutboundAddressPolicy): void {
  for (const [field, value] of definitionUrls(input)) {
    if (value.startsWith("{") || value.startsWith("/")) continue;
    policy.checkSaved(value.replace(PLACEHOLDER_PATTERN, "placeholder"), field);
  }
}

function definitionUrls(input: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const field of ["baseUrl", "authorizationUrl", "tokenUrl", "refreshUrl"]) {
    const value = input[field];
    if (typeof value === "string" && value !== "") out.push([field, value]);
  }
  const identity = input.identity as { url?: unknown } | undefined;
  if (typeof identity?.url === "string") out.push(["identity.url", identity.url]);
  const fields = Array.isArray(input.connectionConfig) ? input.connectionConfig : [];
  for (const [i, f] of fields.entries()) {
    const url = (f as { url?: unknown } | null)?.url;
    if (typeof url === "string") out.push([`connectionConfig.${i}.url`, url]);
  }
  return out;
}
