import { invalidArgument, notFound } from "./google-errors.ts";
import { decodeSegment } from "./router.ts";
import type { Upstream } from "./upstream.ts";

/**
 * The calendar a raw `{calendarId}` path segment names for `email`: decoded (so `alice%40example.com`
 * and `alice@example.com` are one calendar) with `primary` resolved. Users reach their primary calendar
 * and any listed in `addUser({ calendars })`; anything else is Google's 404.
 */
export function resolveCalendar(rawSegment: string, email: string, up: Upstream): string | Response {
  const decoded = decodeSegment(rawSegment);
  if (decoded === undefined || decoded === "") return invalidArgument(`Invalid calendar id: ${rawSegment}`);
  const user = up.oauth.ensureUser(email);
  if (decoded === "primary" || decoded.toLowerCase() === user.email) return user.email;
  return user.calendars.includes(decoded) ? decoded : notFound();
}
