import { authorizeScopes } from "../../google/fake/bearer-auth.ts";
import { CALENDAR_LIST_SCOPES, CALENDAR_READ_SCOPES } from "./options.ts";
import { resolveCalendar } from "./calendar-access.ts";
import type { ChannelRecord } from "./channel-registry.ts";
import { googleApiError, invalidArgument } from "../../google/fake/google-errors.ts";
import { type RequestContext, readJsonObject } from "../../fake-kit/router.ts";
import type { CalendarFakeState } from "./state.ts";

/** Google's documented channel id alphabet (spec: Notification channel, id; Limits). */
const CHANNEL_ID_PATTERN = /^[A-Za-z0-9\-_+/=]+$/;
const MAX_CHANNEL_ID_LENGTH = 64;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** GET /calendar/v3/users/me/calendarList/{calendarId}: the entry whose id is the primary calendar. */
export function calendarListEntryRoute(ctx: RequestContext, up: CalendarFakeState): Response {
  const token = authorizeScopes(ctx.request, up.google, CALENDAR_LIST_SCOPES);
  if (token instanceof Response) return token;
  const calendarId = resolveCalendar(ctx.params[0] ?? "", token.email, up);
  if (calendarId instanceof Response) return calendarId;
  const primary = calendarId === token.email;
  return Response.json({
    kind: "calendar#calendarListEntry",
    id: calendarId,
    summary: calendarId,
    ...(primary ? { primary: true } : {}),
    timeZone: "UTC",
    accessRole: "owner",
  });
}

/** POST /calendar/v3/calendars/{calendarId}/events/watch: creates a channel, then sends "sync". */
export async function watchRoute(ctx: RequestContext, up: CalendarFakeState): Promise<Response> {
  const token = authorizeScopes(ctx.request, up.google, CALENDAR_READ_SCOPES);
  if (token instanceof Response) return token;
  const rawCalendarId = ctx.params[0] ?? "";
  const calendarId = resolveCalendar(rawCalendarId, token.email, up);
  if (calendarId instanceof Response) return calendarId;
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Parse Error", "parseError");
  const fields = validateWatch(body, up);
  if (fields instanceof Response) return fields;

  const channel: ChannelRecord = {
    ...fields,
    resourceId: up.channels.resourceIdFor(calendarId),
    calendarId,
    // Echoes the calendar id as the client spelled it, encoding included (spec: matching, rule 1).
    resourceUri: `${up.options.resourceUriBase}/calendar/v3/calendars/${rawCalendarId}/events?alt=json`,
    clientId: token.clientId,
    ownerEmail: token.email,
    createdAt: up.now(),
    messageNumber: 0,
  };
  up.channels.add(channel);
  up.notifications.send(channel, "sync");
  up.changes.changed();
  return Response.json({
    kind: "api#channel",
    id: channel.id,
    resourceId: channel.resourceId,
    resourceUri: channel.resourceUri,
    ...(channel.token !== undefined ? { token: channel.token } : {}),
    expiration: String(channel.expiration),
  });
}

type WatchFields = Pick<ChannelRecord, "id" | "type" | "address" | "expiration" | "token" | "params">;

function validateWatch(body: Record<string, unknown>, up: CalendarFakeState): WatchFields | Response {
  const { id, type, address, token, params } = body;
  if (typeof id !== "string" || id === "") return invalidArgument("Required channel id", "required");
  if (id.length > MAX_CHANNEL_ID_LENGTH) {
    return invalidArgument(`Channel id must be at most ${MAX_CHANNEL_ID_LENGTH} characters: ${id}`);
  }
  if (!CHANNEL_ID_PATTERN.test(id)) return invalidArgument(`Channel id must match [A-Za-z0-9\\-_\\+/=]+: ${id}`);
  if (typeof type !== "string" || type === "") return invalidArgument("Required channel type", "required");
  // Both spellings appear in the material and Google accepts both (spec: Notification channel, type).
  if (type !== "web_hook" && type !== "webhook")
    return invalidArgument(`Invalid channel type: ${type}`, "push.invalidChannelType", "push");
  if (typeof address !== "string" || address === "") return invalidArgument("Required channel address", "required");
  if (!acceptableAddress(address, up.options.allowInsecureAddresses)) {
    return invalidArgument(`WebHook callback must be HTTPS: ${address}`, "push.webhookUrlNotHttps", "push");
  }
  const expiration = channelExpiration(body.expiration, up);
  if (expiration instanceof Response) return expiration;
  if (up.channels.hasActive(id)) {
    return googleApiError(400, `Channel id ${id} not unique`, {
      reason: "channelIdNotUnique",
      message: `Channel id ${id} not unique`,
    });
  }
  return {
    id,
    type,
    address,
    expiration,
    ...(typeof token === "string" ? { token } : {}),
    ...(params && typeof params === "object" ? { params: params as Record<string, string> } : {}),
  };
}

/**
 * Omitted → now + `defaultChannelTtlMs` (7 days); beyond now + `maxChannelTtlMs` (30 days) → clamped.
 * A time in the past is refused: it is almost always seconds sent where milliseconds were meant.
 */
function channelExpiration(value: unknown, up: CalendarFakeState): number | Response {
  const now = up.now();
  if (value === undefined || value === null) return now + up.options.defaultChannelTtlMs;
  const ms = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ms !== "number" || !Number.isSafeInteger(ms))
    return invalidArgument(`Invalid value for expiration: ${String(value)}`);
  if (ms <= now) return invalidArgument(`Channel expiration must be in the future: ${ms}`, "invalidExpiration");
  return Math.min(ms, now + up.options.maxChannelTtlMs);
}

function acceptableAddress(address: string, allowInsecure: boolean): boolean {
  if (!URL.canParse(address)) return false;
  const url = new URL(address);
  if (url.protocol === "https:") return true;
  return allowInsecure && url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** POST /calendar/v3/channels/stop: 204 for a live channel of this client; Google's 404 otherwise. */
export async function stopChannelRoute(ctx: RequestContext, up: CalendarFakeState): Promise<Response> {
  const token = authorizeScopes(ctx.request, up.google, CALENDAR_READ_SCOPES);
  if (token instanceof Response) return token;
  const body = await readJsonObject(ctx.request);
  if (!body) return invalidArgument("Parse Error", "parseError");
  const { id, resourceId } = body;
  if (typeof id !== "string" || id === "") return invalidArgument("Required channel id", "required");
  if (typeof resourceId !== "string" || resourceId === "") return invalidArgument("Required resourceId", "required");
  if (!up.channels.stop(id, resourceId, token.clientId)) {
    const message = `Channel '${id}' not found for project '${up.options.projectNumber}'`;
    return googleApiError(404, message, { reason: "notFound", message });
  }
  up.changes.changed();
  return new Response(null, { status: 204 });
}
