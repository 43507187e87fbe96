import { describe, expect, test } from "bun:test";
import { decodedForm, nearMatches, resourceUriOf } from "./watch-uri-hints.ts";

const SENT = "https://www.googleapis.com/calendar/v3/calendars/alice%40example.com/events?alt=json";
const LISTED = "https://www.googleapis.com/calendar/v3/calendars/alice@example.com/events?alt=json";

describe("watch URI hints", () => {
  test("the decoded form undoes percent-encoding, double encoding included, and lower-cases the host", () => {
    expect(decodedForm(SENT)).toBe(LISTED);
    expect(decodedForm(SENT.replace("%40", "%2540"))).toBe(LISTED);
    expect(decodedForm("HTTPS://WWW.GoogleAPIs.com/calendar/v3/calendars/A%40b/events")).toBe(
      "https://www.googleapis.com/calendar/v3/calendars/A@b/events",
    );
    expect(decodedForm("https://x/calendars/%E0%A4%A/events")).toBe("https://x/calendars/%E0%A4%A/events");
  });

  test("a connection listing the same URI in another encoding is a near match; the exact one is not", () => {
    const found = nearMatches(SENT, [
      { connectionId: "c-decoded", watchUris: [LISTED, "https://other/x"] },
      { connectionId: "c-exact", watchUris: [SENT] },
      { connectionId: "c-other-calendar", watchUris: [LISTED.replace("alice", "bob")] },
      { connectionId: "c-other-query", watchUris: [LISTED.replace("?alt=json", "")] },
    ]);
    expect(found).toEqual([{ connection_id: "c-decoded", listed_uri: LISTED }]);
  });

  test("the resource URI is read from a forwarded payload, the template's header first", () => {
    const body = (payload: Record<string, string>) => JSON.stringify({ type: "forward", payload });
    expect(resourceUriOf(body({ "x-goog-resource-uri": SENT }), "X-Goog-Resource-URI")).toBe(SENT);
    expect(resourceUriOf(body({ "x-provider-resource-uri": SENT }), "x-goog-resource-uri")).toBe(SENT);
    expect(resourceUriOf(body({ "x-goog-resource-uri": "  " }), "x-goog-resource-uri")).toBeNull();
    expect(resourceUriOf("not json", undefined)).toBeNull();
    expect(resourceUriOf(JSON.stringify({ payload: null }), undefined)).toBeNull();
  });
});
