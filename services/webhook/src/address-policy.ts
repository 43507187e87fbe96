import { isLoopbackHost, isPrivateOrLoopbackHost } from "@junction/platform/address-policy";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";

/**
 * Which endpoint addresses the service may deliver to: the platform's one outbound address policy
 * (`@junction/platform/outbound-address-policy`), with the operator's allowed hosts
 * (JUNCTION_ALLOWED_PRIVATE_HOSTS) and the local-development switch that allows every private endpoint
 * (JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS). A private host not allowed is the policy's refusal
 * (AddressRefusedError, 400 `private_address_not_allowed`); other problems are reasons.
 *
 * Only literal IP addresses and `localhost` names are recognised here: a DNS name may resolve to
 * anything and can change between check and use, so the delivery client checks again the address it
 * actually connects to (resolved at connect time).
 */

export { isLoopbackHost, isPrivateOrLoopbackHost };

/** URLs longer than this are refused; no real receiver needs more. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;

export type EndpointUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/** Who may be reached: every private host (local development), or the operator's allowed hosts only. */
export interface EndpointPolicyOptions {
  allowPrivate: boolean;
  allowedHosts?: readonly string[];
}

/** The endpoints' policy for these options. */
export function endpointPolicy(options: EndpointPolicyOptions): OutboundAddressPolicy {
  return new OutboundAddressPolicy({ allowAnyPrivate: options.allowPrivate, allowedHosts: options.allowedHosts ?? [] });
}

/**
 * Checks a customer endpoint URL: absolute, https (http only to an allowed loopback host), no
 * credentials, and no private or loopback host unless allowed (then it throws the policy's
 * AddressRefusedError naming `field`). On success returns the URL normalised (as the URL parser
 * writes it, without a fragment), which is the form to store and to compare for duplicates.
 */
export function checkEndpointUrl(
  raw: string,
  options: EndpointPolicyOptions | OutboundAddressPolicy,
  field = "url",
): EndpointUrlCheck {
  const policy = options instanceof OutboundAddressPolicy ? options : endpointPolicy(options);
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
  policy.checkSaved(url.href, field);
  if (url.protocol === "http:" && !(policy.allows(url.hostname) && isLoopbackHost(url.hostname))) {
    const allowed = policy.allows(url.hostname);
    return {
      ok: false,
      reason: allowed ? "must use https (http is allowed only to loopback addresses)" : "must use https",
    };
  }
  url.hash = "";
  return { ok: true, url: url.href };
}
