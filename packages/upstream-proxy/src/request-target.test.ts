import { describe, expect, test } from "bun:test";
import { plainRequestTarget } from "./request-target.ts";

describe("request target without a URL object", () => {
  test("gives what new URL gives, whenever it answers", () => {
    const urls = [
      "http://127.0.0.1:3003/proxy/small",
      "http://127.0.0.1:3003/proxy/calendar/v3/calendars/a%40b/events?q=%2F&maxResults=10",
      "http://127.0.0.1:3003/proxy/x?",
      "http://127.0.0.1:3003/proxy/x?a=1?b=2",
      "http://127.0.0.1:3003/",
      "http://127.0.0.1:3003/connections/c-1:2@x",
      "http://localhost:8080/proxy/a",
      "http://localhost:8080/proxy/a b",
      "http://localhost:8080/proxy/%2e%2e/x",
      "http://localhost:8080/proxy/./x",
      "http://localhost:8080/proxy/.well-known/x",
      "http://localhost:8080/proxy/a#frag",
      "http://localhost:8080/proxy/a?q='x'",
      "http://localhost:8080/proxy/a\\b",
      "http://localhost:8080/proxy/a^b|c",
      "http://localhost:8080/proxy/é",
    ];
    let answered = 0;
    for (const raw of urls) {
      const got = plainRequestTarget(raw);
      if (got === undefined) continue;
      answered++;
      const url = new URL(raw);
      expect(got).toEqual({ pathname: url.pathname, search: url.search });
    }
    expect(answered).toBeGreaterThanOrEqual(7);
  });

  test("leaves anything unusual to the URL parser", () => {
    plainRequestTarget("http://127.0.0.1:3003/x");
    for (const raw of [
      "/proxy/a",
      "http://1.2.3.4.5/proxy/a",
      "http://127.0.0.1:3003/proxy/a b",
      "http://127.0.0.1:3003/proxy/../x",
      "http://127.0.0.1:3003/proxy/%2E%2E/x",
      "http://127.0.0.1:3003/proxy/a#f",
      "http://127.0.0.1:3003/proxy/a\\b",
      "http://127.0.0.1:3003/proxy/a?q='x'",
      "http://127.0.0.1:3003?x/proxy/a",
    ]) {
      expect(plainRequestTarget(raw)).toBeUndefined();
    }
  });

  // Moved from gateway.test.ts: the gateway's route context no longer carries the target; the /proxy
  // route reads it itself, with the same function, and trusts it to be plain only when it answers.
  test("reads the target the proxy trusts to be plain", () => {
    expect(plainRequestTarget("http://127.0.0.1:3003/probe/calendar/v3/a%40b?q=1")).toEqual({
      pathname: "/probe/calendar/v3/a%40b",
      search: "?q=1",
    });
  });

  test("gives no target when the URL has to be parsed: the proxy then reads and checks the parsed URL", () => {
    for (const url of [
      "http://127.0.0.1:3003/probe/a'b",
      "http://127.0.0.1:3003/probe/a%2E%2E/b",
      "http://127.0.0.1:3003/probe/x/.well-known/y",
    ]) {
      expect(plainRequestTarget(url)).toBeUndefined();
    }
  });

  test("a target read twice in a row is read once: the gateway routes with it, then /proxy reads it again", () => {
    const url = "http://127.0.0.1:3003/proxy/calendar/v3/users/me/calendarList?maxResults=5";
    const first = plainRequestTarget(url);
    expect(first).toBeDefined();
    expect(plainRequestTarget(`${url}`)).toBe(first);
    expect(plainRequestTarget("http://127.0.0.1:3003/proxy/other")).toEqual({ pathname: "/proxy/other", search: "" });
    expect(plainRequestTarget(url)).toEqual(first);
  });
});
