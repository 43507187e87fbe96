import { describe, expect, test } from "bun:test";
import {
  isLoopbackHost,
  isPrivateAddress,
  isPrivateOrLoopbackHost,
  resolvesToPrivateAddress,
} from "./address-policy.ts";

describe("the outbound address policy", () => {
  test.each([
    // Missed by the webhook's old list.
    ["IETF protocol assignments", "192.0.0.8"],
    ["benchmarking", "198.18.0.1"],
    // Missed by both old lists.
    ["documentation (TEST-NET-1)", "192.0.2.1"],
    ["documentation (TEST-NET-3)", "203.0.113.9"],
    ["the 6to4 relay anycast", "192.88.99.1"],
    ["IPv6 documentation", "2001:db8::1"],
    ["IPv6 discard", "100::1"],
    ["Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    ["local-use NAT64", "64:ff9b:1::a00:1"],
    // Missed by the proxy's old list: IPv4 carried in IPv6.
    ["NAT64 of a private address", "64:ff9b::a00:1"],
    ["NAT64 of the metadata address", "64:ff9b::a9fe:a9fe"],
    ["IPv4-compatible loopback", "::127.0.0.1"],
    ["6to4 of a private address", "2002:a00:1::1"],
    ["IPv4-translated private address", "::ffff:0:a00:1"],
    // Both had these.
    ["mapped loopback", "::ffff:127.0.0.1"],
    ["link-local with a zone", "fe80::1%eth0"],
    ["deprecated site-local (RFC 3879)", "fec0::1"],
  ])("refuses %s (%s)", (_what, address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(isPrivateOrLoopbackHost(address.includes(":") ? `[${address}]` : address)).toBe(true);
  });

  test.each([
    "8.8.8.8",
    "142.250.74.42",
    "2a00:1450:4001:82b::200a",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows the public address %s", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  test("names are not addresses: only localhost names count, without asking DNS", () => {
    expect(isPrivateAddress("example.com")).toBe(false);
    expect(isPrivateAddress("0x7f.1")).toBe(false);
    expect(isPrivateOrLoopbackHost("api.localhost.")).toBe(true);
    expect(isPrivateOrLoopbackHost("localhost.example.com")).toBe(false);
  });

  test("loopback is 127/8 and ::1, also carried in IPv6", () => {
    for (const host of ["localhost", "127.0.0.2", "[::1]", "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]"]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ["10.0.0.1", "[::]", "0.0.0.0", "example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });

  test("a name is judged by every address it resolves to; one that does not resolve is refused", async () => {
    const table: Record<string, string[]> = { "mixed.test": ["8.8.8.8", "198.18.0.1"], "public.test": ["8.8.8.8"] };
    const lookup = async (name: string) => {
      const found = table[name];
      if (!found) throw new Error("ENOTFOUND");
      return found;
    };
    expect(await resolvesToPrivateAddress("mixed.test", lookup)).toBe(true);
    expect(await resolvesToPrivateAddress("public.test", lookup)).toBe(false);
    expect(await resolvesToPrivateAddress("nowhere.test", lookup)).toBe(true);
    expect(await resolvesToPrivateAddress("[64:ff9b::a00:1]", lookup)).toBe(true);
  });
});
