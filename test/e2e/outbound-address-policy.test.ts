import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger, JunctionError } from "@junction/platform";
import { createScriptProxy } from "@junction/scripts-runtime/service/host/proxy-call";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { CALENDAR, CONNECTION, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

/**
 * One outbound address policy. Each address below was missed by one of the two old
 * classifiers (benchmarking and IETF protocol assignments by the webhook's, NAT64 and 6to4 forms of a
 * private address by the proxy's); all three users refuse them now.
 */
const MISSED = ["198.18.0.1", "192.0.0.8", "64:ff9b::a00:1", "2002:a00:1::1"];

let h: ProxyHarness;
let environmentId = "";

beforeAll(async () => {
  h = await startProxyHarness({ env: { JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "false" } });
  const verified = await h.junction.clients.connection.verifySecretKey({ secretKey: TEST_SECRET_KEY });
  environmentId = verified.environmentId;
});
afterAll(() => h.close());

describe("the outbound address policy, as each user applies it", () => {
  test("webhook delivery: an endpoint on any of them is refused when saved", async () => {
    for (const address of MISSED) {
      const host = address.includes(":") ? `[${address}]` : address;
      const res = await h.junction.api("PUT", "/webhook-settings", { endpoints: [`https://${host}/hooks`] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("private_address_not_allowed");
    }
  });

  test("scripts' proxy calls (the /proxy handler in process): a listed host resolving to one of them is refused", async () => {
    for (const address of MISSED) {
      const proxy = createScriptProxy({ lookup: async () => [address] });
      const from = h.fake.state.requests.length;
      const call = proxy(
        {
          environmentId,
          providerConfigKey: CALENDAR,
          connectionId: CONNECTION,
          runId: "run_test",
          clients: h.junction.clients,
          logger: createLogger({ level: "error", sink: () => {} }),
        },
        { method: "GET", endpoint: "/calendars", baseUrlOverride: "https://www.googleapis.com" },
      );
      const refused = await call.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(JunctionError);
      // The address policy's one refusal, naming the header.
      expect((refused as JunctionError).code).toBe("private_address_not_allowed");
      expect((refused as JunctionError).errors[0]?.path).toBe("Base-Url-Override");
      expect(h.fake.state.requests.length).toBe(from);
    }
  });
});
