import type { MetadataKeyRule } from "../adapter.ts";

/**
 * The calendar's connection metadata keys (spec: Resources, Connection, "Known metadata keys"): the
 * watch channel's id and resource id its scripts record, and the watched calendars' URIs, matched
 * exactly (rule 1), under Junction's name and Nango's (connections imported from Nango keep matching).
 */
export const CALENDAR_METADATA_KEYS: readonly MetadataKeyRule[] = [
  { key: "calendarWatchResourceUris", type: "string[]", matchKey: "watch_uris", description: "watched resource URIs" },
  {
    key: "googleCalendarWatchResourceUris",
    type: "string[]",
    matchKey: "watch_uris",
    description: "watched resource URIs (Nango's name)",
  },
  { key: "calendarChannelId", type: "string", description: "the watch channel's id" },
  { key: "calendarResourceId", type: "string", description: "the watch channel's resource id" },
];
