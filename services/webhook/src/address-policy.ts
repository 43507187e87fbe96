import { isLoopbackHost, isPrivateOrLoopbackHost } from "@junction/platform/address-policy";

/**
 * Which endpoint addresses the service may deliver to. Deliveries to private addresses would let a
 * customer-set URL reach the operator's internal network (SSRF), so they are refused unless the
 * operator allows them (local development, tests). The addresses refused are the platform's one
 * outbound address policy (`@junction/platform/address-policy`), shared with the proxy.
 *
 * Only literal IP addresses and `localhost` names are recognised here: a DNS name may resolve to
 * anything and can change between check and use, so the delivery client must check again the
 * address it actually connects to (resolved at connect time) with `isPrivateOrLoopbackHost`.
 */

export { isLoopbackHost, isPrivateOrLoopbackHost };

/** URLs longer than this are refused; no real receiver needs more. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;

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
