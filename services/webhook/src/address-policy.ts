import { isIP } from "node:net";

/**
 * Which endpoint addresses the service may deliver to. Deliveries to private addresses would let a
 * customer-set URL reach the operator's internal network (SSRF), so they are refused unless the
 * operator allows them (local development, tests).
 *
 * Only literal IP addresses and `localhost` names are recognised here: a DNS name may resolve to
 * anything and can change between check and use, so the delivery client must check again the
 * address it actually connects to (resolved at connect time) with `isPrivateOrLoopbackHost`.
 */

/** URLs longer than this are refused; no real receiver needs more. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;

type Range = readonly [prefix: number[], bits: number];

// IPv4 ranges that are not publicly routable: "this network", RFC 1918, shared address space
// (carrier-grade NAT), loopback, link-local (cloud metadata lives at 169.254.169.254), multicast,
// reserved and broadcast.
const PRIVATE_V4: readonly Range[] = [
  [[0], 8],
  [[10], 8],
  [[100, 64], 10],
  [[127], 8],
  [[169, 254], 16],
  [[172, 16], 12],
  [[192, 168], 16],
  [[224], 4],
  [[240], 4],
];

// IPv6 ranges (as 16-bit groups): unique local fc00::/7, link-local fe80::/10, multicast ff00::/8.
// The unspecified and loopback addresses, and addresses embedding an IPv4 one, are handled apart.
const PRIVATE_V6: readonly Range[] = [
  [[0xfc00], 7],
  [[0xfe80], 10],
  [[0xff00], 8],
];

/**
 * Whether `hostname` (a URL hostname, brackets allowed, or a resolved address) is `localhost` or a
 * literal address that is private, loopback, link-local or otherwise not publicly routable.
 * DNS names other than `localhost` return false: see the module comment.
 */
export function isPrivateOrLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  if (isLocalhostName(host)) return true;
  const v4 = ipv4Octets(host);
  if (v4) return PRIVATE_V4.some((r) => inRange(v4, 8, r));
  const v6 = ipv6Groups(host);
  if (v6) {
    const embedded = embeddedIpv4(v6);
    if (embedded) return PRIVATE_V4.some((r) => inRange(embedded, 8, r));
    return PRIVATE_V6.some((r) => inRange(v6, 16, r));
  }
  return false;
}

/** Whether `hostname` is `localhost` or a loopback address (127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  if (isLocalhostName(host)) return true;
  const v6 = ipv6Groups(host);
  if (v6?.slice(0, 7).every((g) => g === 0) && v6[7] === 1) return true;
  const v4 = ipv4Octets(host) ?? (v6 ? embeddedIpv4(v6) : null);
  return v4 !== null && v4[0] === 127;
}

export type EndpointUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Checks a customer endpoint URL: absolute, https (http only to loopback and only when private
 * endpoints are allowed), no credentials, and no private or loopback host unless allowed. On
 * success returns the URL normalised (as the URL parser writes it, without a fragment), which is
 * the form to store and to compare for duplicates.
 */
export function checkEndpointUrl(raw: string, options: { allowPrivate: boolean }): EndpointUrlCheck {
  if (raw.length > MAX_ENDPOINT_URL_LENGTH) {
    return { ok: false, reason: `is longer than ${MAX_ENDPOINT_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not an absolute URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "must use https" };
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "must not contain a user name or password" };
  }
  if (url.hostname === "") return { ok: false, reason: "has no host" };
  if (!options.allowPrivate && isPrivateOrLoopbackHost(url.hostname)) {
    return { ok: false, reason: "points to a private, loopback or link-local address" };
  }
  if (url.protocol === "http:" && !(options.allowPrivate && isLoopbackHost(url.hostname))) {
    return {
      ok: false,
      reason: options.allowPrivate ? "must use https (http is allowed only to loopback addresses)" : "must use https",
    };
  }
  url.hash = "";
  return { ok: true, url: url.href };
}

function normalizeHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  const zone = host.indexOf("%");
  if (zone >= 0) host = host.slice(0, zone);
  // A trailing dot names the same host ("localhost." is localhost).
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

function isLocalhostName(host: string): boolean {
  // RFC 6761: localhost and every name under .localhost resolve to loopback.
  return host === "localhost" || host.endsWith(".localhost");
}

function ipv4Octets(host: string): number[] | null {
  if (isIP(host) !== 4) return null;
  return host.split(".").map(Number);
}

/** The eight 16-bit groups of an IPv6 address, or null when `host` is not one. */
function ipv6Groups(host: string): number[] | null {
  if (isIP(host) !== 6) return null;
  let text = host;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const v4 = ipv4Octets(text.slice(lastColon + 1));
  if (v4) {
    tail.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
    // Keep "::" when it ends right before the IPv4 part; otherwise drop the one separating colon.
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  }
  const [head = "", rest] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = [...(rest === undefined ? [] : parse(rest)), ...tail];
  if (rest === undefined) return [...left, ...right];
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The IPv4 address inside an IPv6 one that carries it: IPv4-mapped (::ffff:0:0/96), NAT64
 * (64:ff9b::/96) and the deprecated IPv4-compatible form (::/96, which covers :: and ::1 too).
 */
function embeddedIpv4(groups: number[]): number[] | null {
  const first6 = groups.slice(0, 6);
  const mapped = first6.slice(0, 5).every((g) => g === 0) && first6[5] === 0xffff;
  const nat64 = first6[0] === 0x64 && first6[1] === 0xff9b && first6.slice(2).every((g) => g === 0);
  const compatible = first6.every((g) => g === 0);
  if (!mapped && !nat64 && !compatible) return null;
  const hi = groups[6] as number;
  const lo = groups[7] as number;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function inRange(address: number[], unitBits: number, [prefix, bits]: Range): boolean {
  for (let i = 0, left = bits; left > 0; i++, left -= unitBits) {
    const take = Math.min(unitBits, left);
    const mask = ((1 << take) - 1) << (unitBits - take);
    if (((address[i] as number) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}
