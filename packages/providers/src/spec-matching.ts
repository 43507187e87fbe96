/**
 * The calendar identifier of a resource URI: the segment after `/calendars/`, URL-decoded
 * (spec: Webhook-to-connection matching, rule 2). null when there is none or its encoding is malformed.
 * The spec's rule, used by the adapters that have no reading of their own and for a provider gone from
 * the registry.
 */
export function calendarIdFromUri(uri: string): string | null {
  const at = uri.indexOf("/calendars/");
  if (at < 0) return null;
  const rest = uri.slice(at + "/calendars/".length);
  const end = rest.search(/[/?#]/);
  const segment = end < 0 ? rest : rest.slice(0, end);
  if (segment === "") return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * How matching reads the email a resource URI names (rule 2's key) for a provider: its adapter's
 * `emailKeyOf`, or the spec's reading (calendarIdFromUri) for a provider without one or gone from
 * the registry.
 */
export function emailKeyReader(
  notifications: { emailKeyOf(resourceUri: string): string | null } | undefined,
): (resourceUri: string) => string | null {
  return notifications ? (uri) => notifications.emailKeyOf(uri) : calendarIdFromUri;
}
