import { invalidArgument, notFound } from "../../google/fake/google-errors.ts";
import { decodeSegment } from "../../fake-kit/router.ts";
import type { CalendarFakeState } from "./state.ts";

/**
 * The calendar a raw `{calendarId}` path segment names for `email`: decoded (so `alice%40example.com`
 * and `alice@example.com` are one calendar) with `primary` resolved. Users reach their primary calendar
 * and any listed in `addUser({ calendars })`; anything else is Google's 404.
 */
export function resolveCalendar(rawSegment: string, email: string, up: CalendarFakeState): string | Response {
  const decoded = decodeSegment(rawSegment);
  if (decoded === undefined || decoded === "") return invalidArgument(`Invalid calendar id: ${rawSegment}`);
  const user = up.google.oauth.ensureUser(email);
  if (decoded === "primary" || decoded.toLowerCase() === user.email) return user.email;
  return user.calendars.includes(decoded) ? decoded : notFound();
}
