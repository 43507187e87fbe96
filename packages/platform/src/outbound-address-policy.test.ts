import { describe, expect, test } from "bun:test";
import { AddressRefusedError } from "./address-refused-error.ts";
import { OutboundAddressPolicy } from "./outbound-address-policy.ts";

const lookup = async (host: string) => (host === "rebind.test" ? ["10.0.0.9"] : ["93.184.216.34"]);

describe("OutboundAddressPolicy", () => {
  test("when saved: literal private spellings and other schemes are refused, names are left to the fetch", () => {
    const policy = new OutboundAddressPolicy({ lookup });
    for (const url of [
      "http://2130706434/",
      "http://0x7f000002/",
      "http://0177.0.0.2/",
      "http://127.1/",
      "http://localhost./",
    ]) {
      expect(() => policy.checkSaved(url, "baseUrl")).toThrow(AddressRefusedError);
    }
    for (const url of ["file:///etc/passwd", "gopher://x.test/", "data:,x", "javascript:alert(1)"]) {
      expect(() => policy.checkSaved(url, "baseUrl")).toThrow(AddressRefusedError);
    }
    expect(policy.checkSaved("https://rebind.test/", "baseUrl")?.hostname).toBe("rebind.test");
    expect(policy.checkSaved("not a url", "baseUrl")).toBeUndefined();
  });

  test("httpsOnly: http refused unless the operator allowed the host", () => {
    const policy = new OutboundAddressPolicy({ allowedHosts: ["127.0.0.1"], lookup });
    expect(() => policy.checkSaved("http://keys.test/certs", "jwks", { httpsOnly: true })).toThrow(AddressRefusedError);
    expect(policy.checkSaved("http://127.0.0.1:9/certs", "jwks", { httpsOnly: true })).toBeDefined();
  });

  test("guard: a DNS answer or a redirect hop to a private address is refused before it is called", async () => {
    const called: string[] = [];
    const fake = async (input: string | URL) => {
      const url = input.toString();
      called.push(url);
      if (url.startsWith("https://public.test/redirect")) {
        return new Response(null, { status: 302, headers: { location: "http://10.0.0.1/token" } });
      }
      return new Response("ok");
    };
    const guarded = new OutboundAddressPolicy({ lookup }).guard(fake, "token_url");
    await expect(guarded("https://rebind.test/token")).rejects.toBeInstanceOf(AddressRefusedError);
    await expect(guarded("https://public.test/redirect")).rejects.toBeInstanceOf(AddressRefusedError);
    expect(called).toEqual(["https://public.test/redirect"]);
    // redirect: "manual" is the caller's: the 3xx is the answer, nothing followed.
    expect((await guarded("https://public.test/redirect", { redirect: "manual" })).status).toBe(302);
  });

  test("a name that does not resolve is left to fetch (it fails as unreachable)", async () => {
    const policy = new OutboundAddressPolicy({
      lookup: async () => {
        throw new Error("ENOTFOUND");
      },
    });
    await policy.checkFetch("https://nowhere.test/", "url");
  });
});
