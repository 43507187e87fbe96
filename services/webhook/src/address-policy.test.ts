import { describe, expect, test } from "bun:test";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import {
  checkEndpointUrl,
  isLoopbackHost,
  isPrivateOrLoopbackHost,
  MAX_ENDPOINT_URL_LENGTH,
} from "./address-policy.ts";

describe("isPrivateOrLoopbackHost", () => {
  test.each([
    "127.0.0.1",
    "127.255.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "0.0.0.0",
    "100.64.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "[::1]",
    "[::]",
    "[fc00::1]",
    "[fd12:3456::1]",
    "[fe80::1]",
    "[fec0::1]",
    "[febf::1]",
    "[ff02::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::ffff:a00:1]",
    "[64:ff9b::a9fe:a9fe]",
    "localhost",
    "LOCALHOST",
    "localhost.",
    "api.localhost",
  ])("refuses %s", (host) => {
    expect(isPrivateOrLoopbackHost(host)).toBe(true);
  });

  test.each([
    "8.8.8.8",
    "11.0.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.169.0.1",
    "169.253.1.1",
    "[2001:4860:4860::8888]",
    "[::ffff:8.8.8.8]",
    "example.com",
    "localhost.example.com",
  ])("allows %s", (host) => {
    expect(isPrivateOrLoopbackHost(host)).toBe(false);
  });
});

describe("isLoopbackHost", () => {
  test("is true only for localhost, 127/8 and ::1", () => {
    for (const host of ["localhost", "127.0.0.1", "127.9.9.9", "[::1]", "[::ffff:127.0.0.1]"]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ["10.0.0.1", "[::]", "[fe80::1]", "example.com", "0.0.0.0"]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});

describe("checkEndpointUrl", () => {
  const strict = { allowPrivate: false };
  const lenient = { allowPrivate: true };

  test("accepts a public https URL and normalises it without its fragment", () => {
    expect(checkEndpointUrl("https://Hooks.Example.COM:443/in?x=1#frag", strict)).toEqual({
      ok: true,
      url: "https://hooks.example.com/in?x=1",
    });
  });

  test.each(["not a url", "/relative/path", "example.com/hooks", ""])("refuses %p as not absolute", (url) => {
    expect(checkEndpointUrl(url, strict)).toEqual({ ok: false, reason: "is not an absolute URL" });
  });

  test.each(["http://example.com/hooks", "ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)"])(
    "refuses %s as not https",
    (url) => {
      expect(checkEndpointUrl(url, strict)).toEqual({ ok: false, reason: "must use https" });
    },
  );

  test("refuses credentials in the URL", () => {
    expect(checkEndpointUrl("https://user:pw@example.com/", strict)).toMatchObject({ ok: false });
  });

  test("refuses URLs that are too long", () => {
    const url = `https://example.com/${"a".repeat(MAX_ENDPOINT_URL_LENGTH)}`;
    expect(checkEndpointUrl(url, strict)).toMatchObject({ ok: false });
  });

  test.each([
    "https://127.0.0.1/hook",
    "https://localhost:8443/hook",
    "https://10.0.0.5/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/hook",
    "https://[fd00::1]/hook",
    // Spellings the URL parser turns into 127.0.0.1 or a mapped loopback address.
    "https://0x7f.1/",
    "https://2130706433/",
    "https://127.1/",
    "https://[0:0:0:0:0:ffff:127.0.0.1]/",
  ])("refuses %s unless private endpoints are allowed (the address policy's refusal)", (url) => {
    expect(() => checkEndpointUrl(url, strict)).toThrow(AddressRefusedError);
    expect(checkEndpointUrl(url, lenient)).toMatchObject({ ok: true });
  });

  test("an operator-allowed host is allowed without the local-development switch", () => {
    const operator = { allowPrivate: false, allowedHosts: ["127.0.0.1"] };
    expect(checkEndpointUrl("http://127.0.0.1:8080/hook", operator)).toMatchObject({ ok: true });
    expect(() => checkEndpointUrl("http://127.0.0.2:8080/hook", operator)).toThrow(AddressRefusedError);
  });

  test("allows http only to loopback, and only when private endpoints are allowed", () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://localhost:3000/x", "http://[::1]:9/x"]) {
      expect(checkEndpointUrl(url, lenient)).toMatchObject({ ok: true });
      expect(() => checkEndpointUrl(url, strict)).toThrow(AddressRefusedError);
    }
    for (const url of ["http://10.0.0.5/hook", "http://example.com/hook"]) {
      expect(checkEndpointUrl(url, lenient)).toEqual({
        ok: false,
        reason: "must use https (http is allowed only to loopback addresses)",
      });
    }
  });
});
