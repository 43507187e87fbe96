import { describe, expect, test } from "bun:test";
import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";
import { fromConnectError } from "@junction/platform";
import { CLIENT, useOAuthHarness } from "../../testing/oauth-test-kit.ts";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";

describe("integration URLs and private addresses", () => {
  const harness = useOAuthHarness();

  test("an override at a private or loopback host is refused when written unless the operator allows it", async () => {
    const h = await harness.start({ settings: { allowedPrivateHosts: [] } });
    for (const [field, overrides] of [
      ["upstream_overrides.token_url", { tokenUrl: "http://127.0.0.1:9/token" }],
      ["upstream_overrides.authorization_url", { authorizationUrl: "http://[::1]/auth" }],
      ["upstream_overrides.base_url", { baseUrl: "http://169.254.169.254/latest" }],
      ["upstream_overrides.base_url", { baseUrl: "http://metadata.localhost/" }],
      ["upstream_overrides.token_url", { tokenUrl: "http://[::ffff:10.0.0.1]/token" }],
    ] as const) {
      const err = await h.client
        .createIntegration({ uniqueKey: "cal", provider: "google-calendar", ...CLIENT, overrides })
        .then(() => null, fromConnectError);
      expect(err).toMatchObject({ code: "private_address_not_allowed", errors: [{ path: field }] });
      expect(err?.message).toContain("JUNCTION_ALLOWED_PRIVATE_HOSTS");
    }
    // Nothing was written; a public override is fine, and an update to a private one changes nothing.
    expect((await h.client.listIntegrations({})).integrations).toEqual([]);
    const overrides = { tokenUrl: "https://oauth2.example.test/token" };
    await h.client.createIntegration({ uniqueKey: "cal", provider: "google-calendar", ...CLIENT, overrides });
    const update = await h.client
      .updateIntegration({ uniqueKey: "cal", overrides: { tokenUrl: "http://10.1.2.3/token" } })
      .then(() => null, fromConnectError);
    expect(update).toMatchObject({
      code: "private_address_not_allowed",
      errors: [{ path: "upstream_overrides.token_url" }],
    });
    const kept = (await h.client.getIntegration({ uniqueKey: "cal" })).integration?.overrides?.tokenUrl;
    expect(kept).toBe("https://oauth2.example.test/token");
  });

  test("the token request is checked when it is made: a host allowed no more is not called", async () => {
    const first = await harness.start();
    await first.integration("cal");
    const callback = await first.authorizeOnly();
    // The operator removes the allow-list and restarts: the integration already stored points at 127.0.0.1.
    const h = await harness.start({ path: first.path, settings: { allowedPrivateHosts: [] } });
    const before = first.fake.state.tokenRequests.total;
    const res = await h.complete(callback);
    expect(res.outcome).toBe(AuthorizationOutcome.TOKEN_ENDPOINT_UNREACHABLE);
    expect(res.message).toContain("refused by the outbound address policy: 127.0.0.1");
    expect(first.fake.state.tokenRequests.total).toBe(before);
  });

  test("a name is judged by the addresses it resolves to; an allowed host is not looked up", async () => {
    const looked: string[] = [];
    const lookup = async (host: string) => {
      looked.push(host);
      return host === "internal.example.test" ? ["10.0.0.5"] : ["93.184.216.34"];
    };
    const policy = new OutboundAddressPolicy({ allowedHosts: ["Sandbox.Local."], lookup });
    const checkRequest = (url: string) => policy.checkFetch(url, "token_url");
    await expect(checkRequest("https://internal.example.test/token")).rejects.toBeInstanceOf(AddressRefusedError);
    await checkRequest("https://oauth2.example.test/token");
    await checkRequest("http://sandbox.local:4000/token");
    expect(looked).toEqual(["internal.example.test", "oauth2.example.test"]);
    await expect(checkRequest("http://[fec0::1]/")).rejects.toBeInstanceOf(AddressRefusedError);
  });
});
