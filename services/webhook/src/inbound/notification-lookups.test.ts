import { describe, expect, test } from "bun:test";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService, MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import { errorBoundary, fromConnectError, memoryLogger, notFound } from "@junction/platform";
import { batchedLookups } from "./notification-lookups.ts";

/** A connection service whose batch call refuses a batch holding the integration "gone". */
function services() {
  const calls: string[] = [];
  const gone = () => notFound("unknown_provider_config", "No integration gone.");
  const transport = createRouterTransport(
    (router) => {
      router.service(ConnectionService, {
        matchNotifications(req) {
          calls.push(`batch of ${req.requests.map((r) => r.resourceUri).join(",")}`);
          if (req.requests.some((r) => r.providerConfigKey === "gone")) throw gone();
          return { results: req.requests.map((r) => ({ connectionIds: [r.resourceUri], rule: MatchRule.WATCH_URI })) };
        },
      });
      router.service(ChannelService, {
        checkNotifications(req) {
          calls.push(`checks of ${req.requests.length}`);
          return { results: req.requests.map((r) => ({ known: true, tokenMatches: r.token === "ok" })) };
        },
      });
    },
    { router: { interceptors: [errorBoundary(memoryLogger())] } },
  );
  return {
    calls,
    lookups: batchedLookups(createClient(ConnectionService, transport), createClient(ChannelService, transport)),
  };
}

describe("batched notification lookups", () => {
  test("the lookups of notifications handled together go out as one call each", async () => {
    const { calls, lookups } = services();
    const matches = await Promise.all(
      ["a", "b", "c"].map((u) => lookups.match({ providerConfigKey: "cal", resourceUri: u })),
    );
    expect(matches.map((m) => m.connectionIds)).toEqual([["a"], ["b"], ["c"]]);
    const checks = await Promise.all(["ok", "bad"].map((token) => lookups.check({ channelId: "ch", token })));
    expect(checks.map((c) => c.tokenMatches)).toEqual([true, false]);
    expect(calls).toEqual(["batch of a,b,c", "checks of 2"]);
  });

  test("a refused batch is tried one batch of one per notification: only the bad one fails, with its own error", async () => {
    const { calls, lookups } = services();
    const settled = await Promise.allSettled(
      ["x", "y"].map((u, i) => lookups.match({ providerConfigKey: i === 1 ? "gone" : "cal", resourceUri: u })),
    );
    expect(settled[0]).toMatchObject({ status: "fulfilled", value: { connectionIds: ["x"] } });
    expect(settled[1]?.status).toBe("rejected");
    expect(fromConnectError((settled[1] as PromiseRejectedResult).reason).code).toBe("unknown_provider_config");
    expect(calls).toEqual(["batch of x,y", "batch of x", "batch of y"]);
  });
});
