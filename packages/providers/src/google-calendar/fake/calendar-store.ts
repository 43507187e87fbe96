import { randomBytes } from "node:crypto";

export type CalendarEvent = Record<string, unknown> & { id: string; status: string };

interface StoredEvent {
  event: CalendarEvent;
  /** Calendar change sequence at the event's last write; sync tokens compare against it. */
  seq: number;
}

interface Calendar {
  seq: number;
  /** Bumped by `invalidateSyncTokens`; tokens from an older epoch get 410. */
  epoch: number;
  events: Map<string, StoredEvent>;
}

export interface ListQuery {
  syncToken?: string;
  pageToken?: string;
  maxResults?: number;
  showDeleted?: boolean;
}

export type ListResult =
  | { items: CalendarEvent[]; nextPageToken?: string; nextSyncToken?: string }
  | "sync-token-invalid"
  | "page-token-invalid";

/** Events per calendar, with enough bookkeeping for incremental sync (syncToken, deletions as "cancelled"). */
export class CalendarStore {
  private readonly calendars = new Map<string, Calendar>();

  constructor(private readonly now: () => number) {}

  private calendar(calendarId: string): Calendar {
    let calendar = this.calendars.get(calendarId);
    if (!calendar) {
      calendar = { seq: 0, epoch: 0, events: new Map() };
      this.calendars.set(calendarId, calendar);
    }
    return calendar;
  }

  create(calendarId: string, body: Record<string, unknown>): CalendarEvent {
    const calendar = this.calendar(calendarId);
    const at = new Date(this.now()).toISOString();
    const id = typeof body.id === "string" && body.id !== "" ? body.id : randomEventId();
    const event: CalendarEvent = {
      kind: "calendar#event",
      htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
      created: at,
      iCalUID: `${id}@google.com`,
      sequence: 0,
      organizer: { email: calendarId, self: true },
      creator: { email: calendarId, self: true },
      ...body,
      id,
      status: typeof body.status === "string" ? body.status : "confirmed",
    };
    return this.write(calendar, event);
  }

  get(calendarId: string, eventId: string): CalendarEvent | undefined {
    return this.calendar(calendarId).events.get(eventId)?.event;
  }

  /** PATCH merges top-level fields; PUT (`replace`) swaps the body but keeps server-owned fields. */
  update(
    calendarId: string,
    eventId: string,
    body: Record<string, unknown>,
    replace: boolean,
  ): CalendarEvent | undefined {
    const calendar = this.calendar(calendarId);
    const stored = calendar.events.get(eventId);
    if (!stored) return undefined;
    const { kind, htmlLink, created, iCalUID, organizer, creator } = stored.event;
    const base = replace ? { kind, htmlLink, created, iCalUID, organizer, creator } : stored.event;
    const sequence = Number(stored.event.sequence ?? 0) + 1;
    return this.write(calendar, { status: "confirmed", ...base, ...body, sequence, id: eventId } as CalendarEvent);
  }

  /** Deletion keeps the event as "cancelled" so an incremental sync can report it. */
  delete(calendarId: string, eventId: string): "deleted" | "not-found" | "already-deleted" {
    const calendar = this.calendar(calendarId);
    const stored = calendar.events.get(eventId);
    if (!stored) return "not-found";
    if (stored.event.status === "cancelled") return "already-deleted";
    this.write(calendar, { ...stored.event, status: "cancelled" });
    return "deleted";
  }

  list(calendarId: string, query: ListQuery): ListResult {
    const calendar = this.calendar(calendarId);
    let sinceSeq = 0;
    if (query.syncToken !== undefined) {
      const parsed = parseToken(query.syncToken, "sync");
      if (!parsed || parsed.epoch !== calendar.epoch) return "sync-token-invalid";
      sinceSeq = parsed.value;
    }
    const incremental = query.syncToken !== undefined;
    const all = [...calendar.events.values()]
      .filter((s) => s.seq > sinceSeq)
      .filter((s) => incremental || query.showDeleted || s.event.status !== "cancelled")
      .sort((a, b) => a.seq - b.seq)
      .map((s) => s.event);
    let offset = 0;
    if (query.pageToken !== undefined) {
      const parsed = parseToken(query.pageToken, "page");
      if (!parsed) return "page-token-invalid";
      offset = parsed.value;
    }
    const limit = Math.min(Math.max(query.maxResults ?? 250, 1), 2500);
    const items = all.slice(offset, offset + limit);
    if (offset + limit < all.length) return { items, nextPageToken: `page.${calendar.epoch}.${offset + limit}` };
    return { items, nextSyncToken: `sync.${calendar.epoch}.${calendar.seq}` };
  }

  /** Makes every outstanding sync token answer 410, forcing clients into a full sync. */
  invalidateSyncTokens(calendarId: string): void {
    this.calendar(calendarId).epoch += 1;
  }

  private write(calendar: Calendar, event: CalendarEvent): CalendarEvent {
    calendar.seq += 1;
    const stamped = { ...event, etag: `"${this.now()}${calendar.seq}"`, updated: new Date(this.now()).toISOString() };
    calendar.events.set(event.id, { event: stamped, seq: calendar.seq });
    return stamped;
  }
}

function parseToken(token: string, kind: "sync" | "page"): { epoch: number; value: number } | undefined {
  const match = new RegExp(`^${kind}\\.(\\d+)\\.(\\d+)$`).exec(token);
  if (!match) return undefined;
  return { epoch: Number(match[1]), value: Number(match[2]) };
}

/** Lowercase base32hex, the alphabet Google Calendar allows in event ids. */
function randomEventId(): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  return Array.from(randomBytes(26), (b) => alphabet[b % 32]).join("");
}
