import { describe, expect, test } from "bun:test";
import { calendarIdFromUri } from "./spec-matching.ts";

const uri = (calendar: string, query = "?alt=json") =>
  `https://www.googleapis.com/calendar/v3/calendars/${calendar}/events${query}`;

describe("calendarIdFromUri", () => {
  test("takes the segment after /calendars/, URL-decoded", () => {
    expect(calendarIdFromUri(uri("a%40b.com"))).toBe("a@b.com");
    expect(calendarIdFromUri("https://x/calendars/primary")).toBe("primary");
    expect(calendarIdFromUri("https://x/calendars/c%40group.calendar.google.com?y")).toBe(
      "c@group.calendar.google.com",
    );
  });
  test("is null without /calendars/ or with malformed encoding", () => {
    expect(calendarIdFromUri("https://x/users/me")).toBeNull();
    expect(calendarIdFromUri("https://x/calendars/")).toBeNull();
    expect(calendarIdFromUri("https://x/calendars/%ZZ/events")).toBeNull();
  });
});
