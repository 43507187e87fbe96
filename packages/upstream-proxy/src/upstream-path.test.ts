import { describe, expect, test } from "bun:test";
import { JunctionError } from "@junction/platform";
import { assertSafePath, upstreamPath } from "./upstream-path.ts";
import { parseBase, upstreamUrl as joinUrl } from "./upstream-url.ts";

const upstreamUrl = (base: string, path: string, query: string) => joinUrl(parseBase(base), path, query);

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof JunctionError ? err.code : `unexpected ${String(err)}`;
  }
  return "accepted";
};

describe("upstream path checks", () => {
  // Raw request targets as a server that does not resolve dot segments (node:http, a future Bun) passes them.
  const refused = [
    "/echo/a%40b/%2e%2e/x",
    "/echo/../../admin",
    "/..",
    "/echo/..",
    "/echo/./x",
    "/echo/.%2e/x",
    "/echo/%2e./x",
    "/echo/%2E%2E/x",
    "/echo/%2e/x",
    "/echo/..%2fx",
    "/echo/%2e%2e%2fx",
    "/echo/%2e%2e%5cx",
    "/echo/%252e%252e/x",
    "/echo/%25252e%25252e/x",
    "/echo\\..\\x",
    "/echo/%5cx",
    "/echo/%5C",
    "//evil.example/x",
    "/echo//x",
    "/%2f%2fevil.example/x",
    "/%2F/evil.example",
    "/http://evil.example/x",
    "/https:evil.example",
    "/javascript:alert(1)",
    "/http:%2f%2fevil.example",
    "/@evil.example/x",
    "/user:pw@evil.example/x",
    "/x@evil.example",
    "/%40evil.example",
    "/echo/a%00b",
    "/echo/a%0d%0ab",
    "/echo/a%7f",
    "relative/path",
  ];
  for (const path of refused) {
    test(`refuses ${JSON.stringify(path)}`, () => {
      expect(refusal(() => assertSafePath(path))).toBe("invalid_proxy_path");
    });
  }

  const accepted = [
    "/gmail/v1/users/me/profile",
    "/calendar/v3/calendars/alice%40example.com/events/watch",
    "/calendar/v3/calendars/alice@example.com/events",
    "/calendar/v3/calendars/abc%40group.calendar.google.com/acl/user:bob@example.com",
    "/files/a.b/..c/c..",
    "/drive/v3/files/%7Eid",
    "/upload/a%2Fb",
    "/echo/%zz",
  ];
  for (const path of accepted) {
    test(`accepts ${JSON.stringify(path)}`, () => {
      expect(refusal(() => assertSafePath(path))).toBe("accepted");
    });
  }

  test("keeps the path and query exactly as they arrived", () => {
    const url = new URL("http://junction.test/proxy/calendar/v3/calendars/a%40b.c/events?q=a%20b&x=%2F&at=a@b#frag");
    const path = upstreamPath(url);
    expect(path).toBe("/calendar/v3/calendars/a%40b.c/events");
    expect(upstreamUrl("https://www.googleapis.com", path, url.search)).toBe(
      "https://www.googleapis.com/calendar/v3/calendars/a%40b.c/events?q=a%20b&x=%2F&at=a@b",
    );
  });

  test("refuses a missing upstream path", () => {
    expect(refusal(() => upstreamPath(new URL("http://j.test/proxy")))).toBe("invalid_proxy_path");
    expect(refusal(() => upstreamPath(new URL("http://j.test/proxy/")))).toBe("invalid_proxy_path");
  });
});

describe("upstream URL", () => {
  test("appends path and query to the base without re-encoding", () => {
    expect(upstreamUrl("https://www.googleapis.com/", "/calendar/v3/calendars/a%40b/events", "?q=%2F")).toBe(
      "https://www.googleapis.com/calendar/v3/calendars/a%40b/events?q=%2F",
    );
    expect(upstreamUrl("http://127.0.0.1:9/base//", "/x@y", "")).toBe("http://127.0.0.1:9/base/x@y");
  });

  test("refuses a result that the URL parser would take out of the base (the last line of defence)", () => {
    expect(refusal(() => upstreamUrl("https://api.example/base", "/../admin", ""))).toBe("invalid_proxy_path");
    expect(refusal(() => upstreamUrl("https://api.example/base", "/%2e%2e/admin", ""))).toBe("invalid_proxy_path");
    expect(refusal(() => upstreamUrl("https://api.example", "@evil.example/x", ""))).toBe("invalid_proxy_path");
  });
});
