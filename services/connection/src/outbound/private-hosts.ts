import {
  dnsLookup,
  type HostLookup,
  isPrivateOrLoopbackHost,
  resolvesToPrivateAddress,
} from "@junction/platform/address-policy";
import type { HttpFetch } from "../context.ts";
import { errors } from "../errors.ts";

/** The REST names of an integration's URL overrides, for the field an error names. */
export const OVERRIDE_FIELDS = {
  baseUrl: "upstream_overrides.base_url",
  authorizationUrl: "upstream_overrides.authorization_url",
  tokenUrl: "upstream_overrides.token_url",
} as const;

/** Thrown (as a network failure) when a call would reach a private or loopback address not allowed. */
export class AddressRefusedError extends Error {
  constructor(host: string) {
    super(
      `refused by the outbound address policy: ${host} is or resolves to a private or loopback address (the operator may allow it with JUNCTION_ALLOWED_PRIVATE_HOSTS)`,
    );
    this.name = "AddressRefusedError";
  }
}

/**
 * The outbound address policy of the connection service (issue 25, finding 8): the URLs it calls for
 * an integration (token endpoint, authorization URL, base URL of post-authorization reads) may reach a
 * private or loopback address only when the operator listed its host (JUNCTION_ALLOWED_PRIVATE_HOSTS, or
 * the hosts of the operator's test credentials, such as the built-in sandbox upstream). A secret key
 * alone is not enough: `upstream_overrides` naming such a host are refused when written, and every
 * request is checked again after DNS resolution, just before it is sent (the proxy's rule; fetch resolves
 * the name once more, so a name whose DNS flips in between is not covered).
 */
export class PrivateHostPolicy {
  private readonly allowed: Set<string>;

  constructor(
    allowedHosts: Iterable<string>,
    private readonly lookupHost: HostLookup = dnsLookup,
  ) {
    this.allowed = new Set([...allowedHosts].map(normalize).filter((h) => h !== ""));
  }

  /** Whether the operator allowed `hostname` to be private. */
  allows(hostname: string): boolean {
    return this.allowed.has(normalize(hostname));
  }

  /** At create and update: refuses an override whose host is literally private or loopback and not allowed. */
  checkOverride(field: keyof typeof OVERRIDE_FIELDS, value: string): void {
    const host = new URL(value).hostname;
    if (isPrivateOrLoopbackHost(host) && !this.allows(host)) {
      throw errors.privateAddressNotAllowed(OVERRIDE_FIELDS[field], host);
    }
  }

  /** Before a request: refuses a URL whose host resolves to a private or loopback address not allowed. */
  async checkRequest(url: string | URL): Promise<void> {
    const host = new URL(url.toString()).hostname;
    if (this.allows(host)) return;
    if (await resolvesToPrivateAddress(host, this.lookupHost)) throw new AddressRefusedError(host);
  }

  /** `fetchImpl` with every request checked first (redirects are not followed by these calls). */
  guard(fetchImpl: HttpFetch): HttpFetch {
    return async (input, init) => {
      await this.checkRequest(input);
      return fetchImpl(input, init);
    };
  }
}

/** Parses JUNCTION_ALLOWED_PRIVATE_HOSTS: comma-separated host names or addresses (IPv6 with or without brackets). */
export function parseAllowedHosts(value: string): string[] {
  return value
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
}

function normalize(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}
