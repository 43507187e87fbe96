import { authorizeScopes } from "../../google/fake/bearer-auth.ts";
import { CALENDAR_READ_SCOPES, CALENDAR_WRITE_SCOPES } from "./options.ts";
import { resolveCalendar } from "./calendar-access.ts";
import { googleApiError, invalidArgument, notFound } from "../../google/fake/google-errors.ts";
import { decodeSegment, type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import { type CalendarFakeState, notifyCalendarChanged } from "./state.ts";

type CalendarHandler = (ctx: RequestContext, up: CalendarFakeState, calendarId: string) => Response | Promise<Response>;

/** Authenticates, checks the scopes and resolves `{calendarId}` (the first capture) before running `handler`. */
function onCalendar(handler: CalendarHandler, scopes: readonly string[] = CALENDAR_READ_SCOPES) {
  return (ctx: RequestContext, up: CalendarFakeState): Response | Promise<Response> => {
    const token = authorizeScopes(ctx.request, up.google, scopes);
    if (token instanceof Response) return token;
    const calendarId = resolveCalendar(ctx.params[0] ?? "", token.email, up);
    if (calendarId instanceof Response) return calendarId;
    return handler(ctx, up, calendarId);
  };
}

/** GET .../events: full or incremental (syncToken) listing, paged. */
export const listEventsRoute = onCalendar((ctx, up, calendarId) => {
  const maxResults = ctx.query.get("maxResults");
  const result = up.calendars.list(calendarId, {
    syncToken: ctx.query.get("syncToken") ?? undefined,
    pageToken: ctx.query.get("pageToken") ?? undefined,
    maxResults: maxResults ? Number(maxResults) : undefined,
    showDeleted: ctx.query.get("showDeleted") === "true",
  });
  if (result === "sync-token-invalid") {
    const message = "Sync token is no longer valid, a full sync is required.";
    return googleApiError(410, message, { reason: "fullSyncRequired", message });
  }
  if (result === "page-token-invalid") return invalidArgument("Invalid page token value.");
  return Response.json({
    kind: "calendar#events",
    summary: calendarId,
    updated: new Date(up.now()).toISOString(),
    timeZone: "UTC",
    accessRole: "owner",
    defaultReminders: [],
    ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}),
    ...(result.nextSyncToken ? { nextSyncToken: result.nextSyncToken } : {}),
    items: result.items,
  });
});

/** POST .../events: Google requires start and end. */
export const createEventRoute = onCalendar(async (ctx, up, calendarId) => {
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Parse Error", "parseError");
  if (!body.start) return invalidArgument("Missing start time.", "required");
  if (!body.end) return invalidArgument("Missing end time.", "required");
  const event = up.calendars.create(calendarId, body);
  notifyCalendarChanged(up, calendarId);
  return Response.json(event);
}, CALENDAR_WRITE_SCOPES);

export const getEventRoute = onCalendar((ctx, up, calendarId) => {
  const event = up.calendars.get(calendarId, eventIdOf(ctx));
  return event ? Response.json(event) : notFound();
});

/** PATCH merges, PUT replaces; both notify watchers. */
export const updateEventRoute = onCalendar(async (ctx, up, calendarId) => {
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Parse Error", "parseError");
  const event = up.calendars.update(calendarId, eventIdOf(ctx), body, ctx.method === "PUT");
  if (!event) return notFound();
  notifyCalendarChanged(up, calendarId);
  return Response.json(event);
}, CALENDAR_WRITE_SCOPES);

export const deleteEventRoute = onCalendar((ctx, up, calendarId) => {
  const outcome = up.calendars.delete(calendarId, eventIdOf(ctx));
  if (outcome === "not-found") return notFound();
  if (outcome === "already-deleted") {
    return googleApiError(410, "Resource has been deleted", {
      reason: "deleted",
      message: "Resource has been deleted",
    });
  }
  notifyCalendarChanged(up, calendarId);
  return new Response(null, { status: 204 });
}, CALENDAR_WRITE_SCOPES);

function eventIdOf(ctx: RequestContext): string {
  return decodeSegment(ctx.params[1] ?? "") ?? "";
}
