import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Addresses that are not publicly routable: "this network", RFC 1918, carrier-grade NAT, loopback,
 * link-local (cloud metadata at 169.254.169.254), benchmarking, multicast, reserved; IPv6 unspecified,
 * loopback, unique-local, link-local, multicast. IPv4-mapped IPv6 addresses are checked as IPv4.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv6");
}

/** Resolves a host name to its addresses (injected in tests). */
export type HostLookup = (hostname: string) => Promise<string[]>;

export const dnsLookup: HostLookup = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Whether a literal IP address is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family === 6) return PRIVATE.check(address, "ipv6");
  return false;
}

/**
 * Whether a URL hostname (brackets allowed) is, or resolves to, a non-public address. `localhost`
 * names count as loopback without asking DNS; a name that does not resolve counts as not public.
 */
export async function resolvesToPrivateAddress(hostname: string, lookupHost: HostLookup): Promise<boolean> {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host)) return isPrivateAddress(host);
  let addresses: string[];
  try {
    addresses = await lookupHost(host);
  } catch {
    return true;
  }
  return addresses.length === 0 || addresses.some(isPrivateAddress);
}
