import { newId } from "@junction/platform";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import { checkEndpointUrl, type EndpointPolicyOptions } from "./address-policy.ts";
import { errors, type RefusedUrl } from "./errors.ts";
import type { EndpointRecord } from "./store/records.ts";

/** The most endpoints an environment may have. */
export const MAX_ENDPOINTS = 10;

/**
 * Checks and normalises the endpoint URLs of an update, in request order without duplicates.
 * Throws `invalid_endpoint_url` naming every refused URL, `too_many_endpoints`, or the address policy's
 * refusal (`private_address_not_allowed`) naming the first URL on a private host not allowed.
 */
export function acceptEndpointUrls(raw: readonly string[], options: EndpointPolicyOptions): string[] {
  const accepted: string[] = [];
  const refused: RefusedUrl[] = [];
  let policyRefusal: AddressRefusedError | undefined;
  raw.forEach((url, index) => {
    try {
      const check = checkEndpointUrl(url, options, `endpoint_urls[${index}]`);
      if (check.ok) accepted.push(check.url);
      else refused.push({ index, url, reason: check.reason });
    } catch (err) {
      if (!(err instanceof AddressRefusedError)) throw err;
      policyRefusal ??= err;
      refused.push({ index, url, reason: `points at ${err.refusal.host}, which ${err.refusal.reason}` });
    }
  });
  // A private host among them: the address policy's refusal (its one code), naming every refused URL.
  if (policyRefusal) throw new AddressRefusedError(policyRefusal.refusal, errors.invalidEndpointUrls(refused).errors);
  if (refused.length > 0) throw errors.invalidEndpointUrls(refused);
  const unique = [...new Set(accepted)];
  if (unique.length > MAX_ENDPOINTS) throw errors.tooManyEndpoints(unique.length, MAX_ENDPOINTS);
  return unique;
}

/**
 * The endpoint list for `urls`: an endpoint whose URL stays keeps its id, state and creation time
 * (deliveries and their history refer to the id); a new URL gets a new, enabled endpoint.
 */
export function replaceEndpoints(
  current: readonly EndpointRecord[],
  urls: readonly string[],
  now: number,
): EndpointRecord[] {
  const byUrl = new Map(current.map((e) => [e.url, e]));
  return urls.map((url) => byUrl.get(url) ?? { id: newId("ep", now), url, enabled: true, createdAt: now });
}
