import { newId } from "@junction/platform";
import { checkEndpointUrl } from "./address-policy.ts";
import { errors, type RefusedUrl } from "./errors.ts";
import type { EndpointRecord } from "./store/records.ts";

/** The most endpoints an environment may have. */
export const MAX_ENDPOINTS = 10;

/**
 * Checks and normalises the endpoint URLs of an update, in request order without duplicates.
 * Throws `invalid_endpoint_url` naming every refused URL, or `too_many_endpoints`.
 */
export function acceptEndpointUrls(raw: readonly string[], options: { allowPrivate: boolean }): string[] {
  const accepted: string[] = [];
  const refused: RefusedUrl[] = [];
  raw.forEach((url, index) => {
    const check = checkEndpointUrl(url, options);
    if (check.ok) accepted.push(check.url);
    else refused.push({ index, url, reason: check.reason });
  });
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
