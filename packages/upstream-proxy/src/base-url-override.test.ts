import { describe, expect, test } from "bun:test";
import { JunctionError } from "@junction/platform";
import { checkBaseUrlOverride } from "./base-url-override.ts";
import { isPrivateAddress } from "@junction/platform/address-policy";
import { AddressRefusedError } from "@junction/platform/address-refused-error";

const integration = { baseUrl: "http://127.0.0.1:4010/api", allowedHosts: ["www.googleapis.com"] };
const dns = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return found;
};
const publicDns = dns({ "www.googleapis.com": ["142.250.74.42", "2a00:1450:4001:82b::200a"] });

async function reason(override: string, lookup = publicDns): Promise<string> {
  try {
    return `allowed ${await checkBaseUrlOverride(override, integration, lookup)}`;
  } catch (err) {
    if (err instanceof AddressRefusedError) {
      // The address policy's one refusal: its own code, the header named.
      expect(err.code).toBe("private_address_not_allowed");
      expect(err.errors[0]?.path).toBe("Base-Url-Override");
      return "refused by the address policy";
    }
    if (!(err instanceof JunctionError)) throw err;
    expect(err.code).toBe("base_url_override_not_allowed");
    return err.errors[0]?.message ?? "";
  }
}

describe("Base-Url-Override", () => {
  test("a listed host over https with public addresses is allowed", async () => {
    expect(await reason("https://www.googleapis.com/")).toBe("allowed https://www.googleapis.com");
    expect(await reason("https://WWW.googleapis.com/batch")).toBe("allowed https://www.googleapis.com/batch");
  });

  test("the integration's own base, or a path below it, is allowed whatever its address", async () => {
    expect(await reason("http://127.0.0.1:4010/api")).toBe("allowed http://127.0.0.1:4010/api");
    expect(await reason("http://127.0.0.1:4010/api/v2/")).toBe("allowed http://127.0.0.1:4010/api/v2");
  });

  test("a listed host that resolves to a private address is refused (DNS rebinding)", async () => {
    expect(await reason("https://www.googleapis.com", dns({ "www.googleapis.com": ["10.1.2.3"] }))).toBe(
      "refused by the address policy",
    );
    expect(await reason("https://www.googleapis.com", dns({ "www.googleapis.com": ["142.250.74.42", "::1"] }))).toBe(
      "refused by the address policy",
    );
    expect(await reason("https://www.googleapis.com", dns({}))).toBe("refused by the address policy");
  });

  test("addresses one of the two old classifiers missed are refused (proxy and scripts' proxy calls)", async () => {
    // 198.18.0.1 (benchmarking) was missed by the webhook's list, 64:ff9b::a00:1 (NAT64 of 10.0.0.1) by the proxy's.
    for (const address of ["198.18.0.1", "192.0.0.8", "64:ff9b::a00:1", "2002:a00:1::1"]) {
      expect(await reason("https://www.googleapis.com", dns({ "www.googleapis.com": [address] }))).toBe(
        "refused by the address policy",
      );
    }
  });

  test("everything else is refused, with a reason", async () => {
    expect(await reason("http://127.0.0.1:4010/apiv2")).toContain("may only point at");
    expect(await reason("http://127.0.0.1:4010/")).toContain("may only point at");
    expect(await reason("http://127.0.0.1:4010/api/../admin")).toContain("dot segments");
    expect(await reason("http://127.0.0.1:4010/api/%2e%2e/admin")).toContain("dot segments");
    expect(await reason("https://evil.example")).toContain("may only point at");
    expect(await reason("https://www.googleapis.com@evil.example")).toBe("must not contain a user name or password");
    expect(await reason("https://u:p@www.googleapis.com")).toBe("must not contain a user name or password");
    expect(await reason("http://www.googleapis.com")).toBe("must use https");
    expect(await reason("https://www.googleapis.com:444")).toBe("must use the host's default port");
    expect(await reason("ftp://www.googleapis.com")).toBe("must use https");
    expect(await reason("https://www.googleapis.com/?a=1")).toBe("must not contain a query or fragment");
    expect(await reason("https://www.googleapis.com/#x")).toBe("must not contain a query or fragment");
    expect(await reason("www.googleapis.com")).toBe("is not an absolute URL");
  });
});

describe("private addresses", () => {
  test("recognises non-public IPv4 and IPv6 addresses", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0"])
      expect(isPrivateAddress(a)).toBe(true);
    for (const a of ["::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"])
      expect(isPrivateAddress(a)).toBe(true);
    for (const a of ["142.250.74.42", "8.8.8.8", "2a00:1450:4001:82b::200a", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a)).toBe(false);
  });
});
