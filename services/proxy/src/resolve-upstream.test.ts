import { describe, expect, test } from "bun:test";
import type { Client } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ManualClock } from "@junction/platform";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { DEFAULT_PROXY_CONFIG } from "./config.ts";
import { resolveUpstream } from "./resolve-upstream.ts";

// When fetched: the base URL the proxy (and the scripts' proxy) would call passes the address policy on
// every resolve, DNS answers included (a test resolver), whatever saved it (a definition or an override
// stored before the policy, a connection config filled in).

const TABLE: Record<string, string[]> = { "api.public.test": ["142.250.74.42"], "internal.public.test": ["10.0.0.5"] };
const policy = new OutboundAddressPolicy({
  allowedHosts: ["allowed.internal.test"],
  lookup: async (host) => TABLE[host] ?? ["192.168.0.9"],
});

function connectionsAnswering(baseUrl: string) {
  const getCredentials = async () => ({
    credentials: { accessToken: "token", apiKey: "", username: "", expiresAtMs: 0n },
    integration: { overrides: { baseUrl } },
    provider: { baseUrl: "", allowedOverrideHosts: [], webhookHeaders: {} },
  });
  return { getCredentials } as unknown as Client<typeof ConnectionService>;
}

const resolve = (baseUrl: string) =>
  resolveUpstream(
    {
      connections: connectionsAnswering(baseUrl),
      clock: new ManualClock(),
      config: DEFAULT_PROXY_CONFIG,
      addressPolicy: policy,
    },
    { providerConfigKey: "k", connectionId: "c", forceRefresh: false } as never,
  );

describe("ResolveUpstream and the address policy", () => {
  test("a public base URL resolves", async () => {
    expect((await resolve("https://api.public.test/v1")).baseUrl).toBe("https://api.public.test/v1");
  });

  test.each([
    "https://internal.public.test/v1",
    "http://127.0.0.2:9/",
    "http://[::ffff:127.0.0.2]/",
    "http://2130706434/",
    "https://169.254.169.254/latest",
  ])("%s is refused with the policy's error before any call", async (baseUrl) => {
    const refused = await resolve(baseUrl).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AddressRefusedError);
    expect((refused as AddressRefusedError).code).toBe("private_address_not_allowed");
  });

  test("a host the operator allowed is not looked up", async () => {
    expect((await resolve("http://allowed.internal.test:8080")).baseUrl).toBe("http://allowed.internal.test:8080");
  });
});
