import type { StateChanges } from "../../fake-kit/state-changes.ts";
import type { GoogleFakeState } from "../../google/fake/state.ts";
import type { CalendarStore } from "./calendar-store.ts";
import type { ChannelRegistry } from "./channel-registry.ts";
import type { NotificationSender } from "./notification-sender.ts";
import type { CalendarFakeResolvedOptions } from "./options.ts";

/** The calendar fake's world, handed to its routes; `google` holds the shared accounts (tokens, users). */
export interface CalendarFakeState {
  google: GoogleFakeState;
  options: CalendarFakeResolvedOptions;
  now: () => number;
  changes: StateChanges;
  calendars: CalendarStore;
  channels: ChannelRegistry;
  notifications: NotificationSender;
}

/** Sends "exists" to every live channel on the calendar (spec: channel lifecycle, change of watched resource). */
export function notifyCalendarChanged(up: CalendarFakeState, calendarId: string): number {
  const channels = up.channels.activeOn(calendarId);
  for (const channel of channels) up.notifications.send(channel, "exists");
  return channels.length;
}
