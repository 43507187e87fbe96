import { isIP } from "node:net";
import { dnsLookup, type HostLookup, isPrivateAddress, isPrivateOrLoopbackHost } from "./address-policy.ts";
import { AddressRefusedError } from "./address-refused-error.ts";

/** The part of fetch a guarded caller uses. */
export type PolicyFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface OutboundAddressPolicyOptions {
  /**
   * Hosts the operator allows although private or loopback (JUNCTION_ALLOWED_PRIVATE_HOSTS, the hosts of
   * the operator's test credentials): names or addresses, IPv6 with or without brackets.
   */
  allowedHosts?: Iterable<string>;
  /** Every private host allowed (a local-development switch such as JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS). */
  allowAnyPrivate?: boolean;
  /** DNS, replaced by tests (a test resolver answers private addresses for public-looking names). */
  lookup?: HostLookup;
}

/** Redirects a guarded fetch follows, each hop checked again. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/**
 * The one outbound address policy of Junction: every URL Junction fetches for a customer, a provider
 * definition or a push (integration and definition URLs, connection-config hosts, overrides, JWKS, token
 * and refresh URLs, webhook endpoints) is checked by one of these, twice:
 * - when saved (`checkSaved`): absolute http(s), and a host that is literally private or loopback
 *   (any spelling the URL parser reads as one: `2130706434`, `0x7f000002`, `0177.0.0.2`, `127.1`,
 *   `[::ffff:127.0.0.2]`, `localhost.`) refused unless the operator allowed it;
 * - when fetched (`checkFetch`, `guard`): the same, and the addresses a DNS name resolves to, and every
 *   redirect hop. fetch resolves the name once more itself, so a name whose DNS changes between the check
 *   and the request is not covered (the webhook sender checks the address it connects to instead).
 * A refusal is an AddressRefusedError (400 `private_address_not_allowed`).
 */
export class OutboundAddressPolicy {
  private readonly allowed: Set<string>;
  private readonly allowAnyPrivate: boolean;
  private readonly lookup: HostLookup;

  constructor(options: OutboundAddressPolicyOptions = {}) {
    this.allowed = new Set([...(options.allowedHosts ?? [])].map(normalizeHost).filter((h) => h !== ""));
    this.allowAnyPrivate = options.allowAnyPrivate === true;
    this.lookup = options.lookup ?? dnsLookup;
  }

  /** Whether the operator allowed `hostname` to be private (or allowed every private host). */
  allows(hostname: string): boolean {
    return this.allowAnyPrivate || this.allowed.has(normalizeHost(hostname));
  }

  /**
   * A URL about to be stored: parsed, http(s) (https alone with `httpsOnly`, an allowed private host
   * aside), and not literally private unless allowed. Returns the parsed URL. A value that is no absolute
   * URL at all is the caller's validation error, not a refusal: it returns undefined.
   */
  checkSaved(raw: string, field: string, options: { httpsOnly?: boolean } = {}): URL | undefined {
    const url = parseUrl(raw);
    if (url === undefined) return undefined;
    this.checkLiteral(url, field, "saved", options.httpsOnly === true);
    return url;
  }

  /** Before a request: scheme, literal host, then the addresses the name resolves to. */
  async checkFetch(target: string | URL, field: string, options: { httpsOnly?: boolean } = {}): Promise<void> {
    const url = typeof target === "string" ? parseUrl(target) : target;
    if (url === undefined) throw refused(field, "(unparsable URL)", "is not an absolute URL", "fetched");
    this.checkLiteral(url, field, "fetched", options.httpsOnly === true);
    if (this.allows(url.hostname) || isIP(normalizeHost(url.hostname)) !== 0) return;
    let addresses: string[];
    try {
      addresses = await this.lookup(normalizeHost(url.hostname));
    } catch {
      // fetch cannot resolve it either: the call fails as unreachable, which is what it is.
      return;
    }
    if (addresses.some(isPrivateAddress)) {
      throw refused(field, url.hostname, "resolves to a private or loopback address", "fetched");
    }
  }

  /**
   * `fetchImpl` with every request checked first. Redirects are followed here, each hop checked, unless
   * the caller asked for `redirect: "manual"` (then the 3xx is the answer, as before).
   */
  guard(fetchImpl: PolicyFetch, field: string, options: { httpsOnly?: boolean } = {}): PolicyFetch {
    return async (input, init) => {
      let url = new URL(input.toString());
      const follow = init?.redirect !== "manual" && init?.redirect !== "error";
      let request: RequestInit = { ...init, redirect: "manual" };
      for (let hop = 0; ; hop++) {
        await this.checkFetch(url, field, options);
        const res = await fetchImpl(url, request);
        const location = res.headers.get("location");
        if (!follow || !REDIRECT_STATUS.has(res.status) || location === null) return res;
        if (hop === MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
        await res.body?.cancel();
        url = new URL(location, url);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && request.method === "POST")) {
          request = { ...request, method: "GET", body: null };
        }
      }
    };
  }

  private checkLiteral(url: URL, field: string, when: "saved" | "fetched", httpsOnly: boolean): void {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new AddressRefusedError({
        field,
        host: url.protocol,
        reason: "is not an http or https URL",
        when,
        allowable: false,
      });
    }
    const allowed = this.allows(url.hostname);
    if (httpsOnly && url.protocol !== "https:" && !allowed) {
      throw refused(field, `${url.protocol}//${url.hostname}`, "is not https", when);
    }
    if (!allowed && isPrivateOrLoopbackHost(url.hostname)) {
      throw refused(field, url.hostname, "is a private or loopback address", when);
    }
  }
}

/** The operator's JUNCTION_ALLOWED_PRIVATE_HOSTS, for the processes that build a policy of their own. */
export function loadAllowedPrivateHosts(env: Record<string, string | undefined> = process.env): string[] {
  return parseAllowedHosts(env.JUNCTION_ALLOWED_PRIVATE_HOSTS ?? "");
}

/** The hosts of some URLs (an operator's test credentials, the sandbox upstream's): allowed as configuration. */
export function hostsOf(urls: Iterable<string | undefined>): string[] {
  return [...urls].flatMap((u) => {
    const url = u ? parseUrl(u) : undefined;
    return url ? [url.hostname] : [];
  });
}

/** Parses JUNCTION_ALLOWED_PRIVATE_HOSTS: comma-separated host names or addresses (IPv6 with or without brackets). */
export function parseAllowedHosts(value: string): string[] {
  return value
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
}

function refused(field: string, host: string, reason: string, when: "saved" | "fetched"): AddressRefusedError {
  return new AddressRefusedError({ field, host, reason, when });
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}
