import { afterEach, describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ResolveUpstreamResponse } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { createLogger } from "@junction/platform";
import { providerAdapter } from "@junction/providers";
import type { ChannelCallReport } from "./channel-report.ts";
import { readUpstreamRequest } from "./proxy-controls.ts";
import { bodyOfBytes } from "./request-body.ts";
import { DEFAULT_PROXY_SETTINGS } from "./proxy-settings.ts";
import { toResolved } from "./resolve-cache.ts";
import { createUpstreamProxy } from "./upstream-proxy.ts";

const HEADERS = { "provider-config-key": "mail", "connection-id": "alice" };
let upstream: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => upstream?.stop(true));

/** A resolve answer as the proxy service sends it (only the fields the engine reads). */
const answerOf = (baseUrl: string, provider: string) =>
  toResolved({
    baseUrl,
    provider,
    headers: {},
    cacheUntilMs: 0n,
    allowedOverrideHosts: [],
  } as unknown as ResolveUpstreamResponse);

describe("the channel tap in the engine", () => {
  test("a resolve answer carries its provider's channel adapter (none for a provider without channels)", () => {
    const answer = (provider: string) => answerOf("https://api.example", provider);
    expect(answer("google-mail").channels).toBe(providerAdapter("google-mail")?.channels);
    expect(answer("google-mail").provider).toBe("google-mail");
    expect(answer("no-such-provider").channels).toBeUndefined();
  });

  test("a watch on the integration's provider is reported with that provider and the call's path", async () => {
    upstream = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Response.json({ historyId: "7", expiration: "1800000000000" }),
    });
    const baseUrl = `http://127.0.0.1:${upstream.port}`;
    const reported = Promise.withResolvers<ChannelCallReport>();
    const proxy = createUpstreamProxy({
      settings: DEFAULT_PROXY_SETTINGS,
      resolve: async () => answerOf(baseUrl, "google-mail"),
      reportChannelCall: async (report) => reported.resolve(report),
    });
    const sent = new TextEncoder().encode(JSON.stringify({ topicName: "projects/p/topics/t" }));
    const res = await proxy(
      readUpstreamRequest(HEADERS, "POST", "/gmail/v1/users/me/watch", "", true, bodyOfBytes(sent)),
      {
        environmentId: "env_1",
        headers: HEADERS,
        req: { signal: new AbortController().signal },
        requestId: "req_1",
        logger: createLogger({ level: "error" }),
      },
    );
    expect(await res.json()).toEqual({ historyId: "7", expiration: "1800000000000" });
    const report = await reported.promise;
    expect(report).toMatchObject({
      call: ChannelCall.WATCH,
      provider: "google-mail",
      path: "/gmail/v1/users/me/watch",
      providerConfigKey: "mail",
      connectionId: "alice",
      status: 200,
    });
    expect(new TextDecoder().decode(report.requestBody)).toBe('{"topicName":"projects/p/topics/t"}');
  });
});
