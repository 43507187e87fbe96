import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The address classification of the one outbound address policy (`outbound-address-policy.ts`, which
 * every URL Junction fetches passes): which addresses a call made for a customer must not reach, so that
 * a URL someone else chose cannot reach the operator's own network (SSRF). Public unicast only: every IANA
 * special-purpose range (`ipaddr.js`'s list: "this network", RFC 1918, carrier-grade NAT, loopback,
 * link-local with the cloud metadata at 169.254.169.254, IETF protocol assignments 192.0.0.0/24,
 * documentation, benchmarking, multicast, reserved, broadcast; IPv6 unspecified, loopback, unique-local,
 * link-local, multicast, discard, documentation, ORCHID, Teredo) is refused. An IPv4 address carried
 * inside an IPv6 one (mapped, translated, IPv4-compatible, NAT64 64:ff9b::/96, 6to4) is judged as that
 * IPv4 address. The deprecated site-local fec0::/10 (RFC 3879) is refused too: it was never public.
 */

/** IPv6 ranges that carry an IPv4 address in their last 32 bits. */
const CARRIES_IPV4_LAST = new Set(["ipv4Mapped", "rfc6145"]);
/** Ranges judged as public unicast. */
const PUBLIC_RANGES = new Set(["unicast"]);

/** Resolves a host name to its addresses (injected in tests). */
export type HostLookup = (hostname: string) => Promise<string[]>;

export const dnsLookup: HostLookup = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Whether a literal IP address (no brackets) is not public unicast; false for anything that is not an address. */
export function isPrivateAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (parsed === undefined) return false;
  const v4 = asIpv4(parsed);
  return v4 === undefined ? !PUBLIC_RANGES.has(parsed.range()) : !PUBLIC_RANGES.has(v4.range());
}

/**
 * Whether `hostname` (a URL hostname, brackets allowed, or a resolved address) is `localhost` or a
 * literal address that `isPrivateAddress` refuses. Other DNS names return false: a name may resolve
 * to anything, so the caller checks the addresses it connects to.
 */
export function isPrivateOrLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  return isLocalhostName(host) || isPrivateAddress(host);
}

/** Whether `hostname` is `localhost` or a loopback address (127.0.0.0/8, ::1, or those carried in IPv6). */
export function isLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  if (isLocalhostName(host)) return true;
  const parsed = parseAddress(host);
  if (parsed === undefined) return false;
  return (asIpv4(parsed) ?? parsed).range() === "loopback";
}

/**
 * Whether a URL hostname (brackets allowed) is, or resolves to, a non-public address. `localhost`
 * names count as loopback without asking DNS; a name that does not resolve counts as not public.
 */
export async function resolvesToPrivateAddress(hostname: string, lookupHost: HostLookup): Promise<boolean> {
  const host = normalizeHost(hostname);
  if (isLocalhostName(host)) return true;
  if (isIP(host)) return isPrivateAddress(host);
  let addresses: string[];
  try {
    addresses = await lookupHost(host);
  } catch {
    return true;
  }
  return addresses.length === 0 || addresses.some(isPrivateAddress);
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const zone = address.indexOf("%");
  const plain = zone >= 0 ? address.slice(0, zone) : address;
  // node's isIP accepts only the usual notations; ipaddr.js alone would also read "0x7f.1" as an address.
  return isIP(plain) === 0 ? undefined : ipaddr.parse(plain);
}

/** The IPv4 address an address stands for: itself, or the one an IPv6 address carries; undefined for other IPv6. */
function asIpv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.kind() === "ipv4") return address as ipaddr.IPv4;
  const v6 = address as ipaddr.IPv6;
  const parts = v6.parts;
  const range = v6.range();
  const carriesLast =
    CARRIES_IPV4_LAST.has(range) ||
    // NAT64's well-known prefix (the local-use 64:ff9b:1::/48 stays refused as a special range).
    (range === "rfc6052" && parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0) ||
    // IPv4-compatible ::/96 (deprecated), except :: and ::1 themselves.
    (range === "unicast" && parts.slice(0, 6).every((p) => p === 0));
  if (carriesLast) return fromParts(parts[6] as number, parts[7] as number);
  if (range === "6to4") return fromParts(parts[1] as number, parts[2] as number);
  return undefined;
}

function fromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function normalizeHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  // A trailing dot names the same host ("localhost." is localhost).
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

function isLocalhostName(host: string): boolean {
  // RFC 6761: localhost and every name under .localhost resolve to loopback.
  return host === "localhost" || host.endsWith(".localhost");
}
