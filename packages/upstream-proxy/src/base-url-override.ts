import { proxyErrors } from "./proxy-errors.ts";
import { type HostLookup, resolvesToPrivateAddress } from "@junction/platform/address-policy";
import { AddressRefusedError } from "@junction/platform/address-refused-error";

/**
 * Checks the caller's `Base-Url-Override` (spec: Proxy rules; Nango's header) and returns the base
 * to use. Allowed: an https URL on a host the provider lists (`allowed_override_hosts`) that resolves
 * only to public addresses, or a URL under the integration's own base URL, which the operator chose
 * (it may be a local address, as the operator's override is trusted). Refused with 400: another host,
 * another scheme, user info (`https://allowed@evil`), a query or fragment; and private or loopback
 * addresses with the address policy's refusal (400 `private_address_not_allowed`). The address is checked when the request is made; fetch resolves the name again, so a
 * provider host whose DNS flips between the two is not covered (provider hosts are not expected to).
 */
export async function checkBaseUrlOverride(
  override: string,
  integration: { baseUrl: string; allowedHosts: readonly string[] },
  lookupHost: HostLookup,
): Promise<string> {
  let url: URL;
  try {
    url = new URL(override);
  } catch {
    throw proxyErrors.overrideRefused("is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw proxyErrors.overrideRefused("must use https");
  if (url.username !== "" || url.password !== "") {
    throw proxyErrors.overrideRefused("must not contain a user name or password");
  }
  if (url.search !== "" || url.hash !== "" || override.includes("?") || override.includes("#")) {
    throw proxyErrors.overrideRefused("must not contain a query or fragment");
  }
  if (/[\\]|%2e|%5c|\/\.\.?(\/|$)/i.test(override)) {
    throw proxyErrors.overrideRefused("must not contain dot segments or backslashes");
  }
  const base = url.href.replace(/\/+$/, "");
  if (isUnder(base, integration.baseUrl)) return base;
  const host = url.hostname.toLowerCase();
  if (!integration.allowedHosts.some((h) => h.toLowerCase() === host)) {
    throw proxyErrors.overrideRefused(`may only point at ${describe(integration.allowedHosts)}`);
  }
  if (url.protocol !== "https:") throw proxyErrors.overrideRefused("must use https");
  if (url.port !== "") throw proxyErrors.overrideRefused("must use the host's default port");
  if (await resolvesToPrivateAddress(url.hostname, lookupHost)) {
    // The address policy's one refusal (no operator allow list here: a caller's header never reaches a private host).
    throw new AddressRefusedError({
      field: "Base-Url-Override",
      host: url.hostname,
      reason: "is or resolves to a private or loopback address",
      when: "fetched",
    });
  }
  return base;
}

/** Whether `candidate` is the integration's base URL or a path below it (same origin, segment boundary). */
function isUnder(candidate: string, integrationBase: string): boolean {
  let base: string;
  try {
    base = new URL(integrationBase).href.replace(/\/+$/, "");
  } catch {
    return false;
  }
  return candidate === base || candidate.startsWith(`${base}/`);
}

function describe(hosts: readonly string[]): string {
  return hosts.length === 0 ? "the integration's own base URL" : `the integration's base URL or ${hosts.join(", ")}`;
}
