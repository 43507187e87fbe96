import { describe, expect, test } from "bun:test";
import type { Client } from "@connectrpc/connect";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ManualClock, notFound } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { capturingRecorder } from "@junction/platform/testing/capturing-recorder";
import type { ChannelCallLabel } from "./channel-call-operation.ts";
import { callUpstream } from "./upstream-call.ts";

const TARGET = { providerConfigKey: "int", connectionId: "conn-1" };
const CREATE: ChannelCallLabel = { action: "create", environmentId: "env_1", channelId: "chn_ours" };

/** callUpstream against a stub proxy and upstream: each request takes the next answer (a status, or a throw). */
async function call(answers: Array<number | "unreachable">, label = CREATE, resolveFails = false) {
  const { clock, rec: operations, got: recorded } = capturingRecorder({ clock: new ManualClock() });
  const proxy = {
    async resolveUpstream(req: { forceRefresh: boolean }) {
      if (resolveFails) throw notFound("unknown_connection", 'No connection "conn-1" for integration "int".');
      const token = req.forceRefresh ? "fresh-access-token-77" : "stale-access-token-42";
      return {
        provider: "google-calendar",
        baseUrl: "http://upstream.test",
        headers: { authorization: `Bearer ${token}` },
      };
    },
  } as unknown as Client<typeof ProxyService>;
  const fetch = async () => {
    clock.advance(40);
    const next = answers.shift();
    if (next === "unreachable" || next === undefined) throw new Error("connect ECONNREFUSED");
    return new Response(JSON.stringify({ id: "chn_theirs", token: "channel-secret-token" }), { status: next });
  };
  const deps = { proxy, fetch, timeoutMs: 1_000, clock, operations };
  const build = () => ({
    method: "POST" as const,
    path: "/watch",
    body: JSON.stringify({ token: "channel-secret-token" }),
  });
  const result = await callUpstream(deps, TARGET, label, build).catch((err: unknown) => ({ thrown: err }));
  await operations.flushed();
  expect(recorded).toHaveLength(1);
  const op = recorded[0] as Operation;
  expect(JSON.stringify(op)).not.toMatch(/access-token|channel-secret-token/);
  return { op, result, fields: op.messages[0]?.fields ?? {} };
}

describe("channel_call operations", () => {
  test("a call refused with 401 is retried with fresh credentials: one operation, two attempts, the answer's id", async () => {
    const label = { ...CREATE, answeredId: () => "chn_theirs" };
    const { op, fields } = await call([401, 200], label);
    expect(op).toMatchObject({
      kind: "channel_call",
      status: "success",
      environmentId: "env_1",
      integration: "int",
      connection: "conn-1",
      durationMs: 80,
      title: "create channel chn_theirs → 200",
      tags: ["channel:chn_theirs", "provider:google-calendar"],
    });
    expect(fields).toEqual({
      action: "create",
      channelId: "chn_theirs",
      provider: "google-calendar",
      upstreamStatus: 200,
      attempts: 2,
    });
  });

  test("a stop answered 404 is a channel gone already; a 500 is a failure without the answer's body", async () => {
    const gone = await call([404], { action: "stop", environmentId: "env_1", channelId: "chn_1", alsoFine: 404 });
    expect(gone.op).toMatchObject({ status: "success", title: "stop channel chn_1 → 404" });
    expect(gone.op.messages[0]?.text).toBe("the upstream answered 404 (the channel is gone already)");

    const refused = await call([500], { action: "renew", environmentId: "env_1", channelId: "chn_1" });
    expect(refused.op).toMatchObject({ status: "failed", title: "renew channel chn_1 → 500 (upstream_refused)" });
    expect(refused.fields).toMatchObject({ upstreamStatus: 500, error: "upstream_refused" });
    expect(JSON.stringify(refused.op)).not.toContain("chn_theirs");
  });

  test("an upstream not reached, and a connection the proxy service does not know (thrown on, recorded first)", async () => {
    const unreachable = await call(["unreachable"]);
    expect(unreachable.op).toMatchObject({
      status: "failed",
      title: "create channel chn_ours failed: upstream_unreachable",
    });

    const unknown = await call([], CREATE, true);
    expect(unknown.result).toHaveProperty("thrown");
    expect(unknown.op).toMatchObject({ status: "failed", title: "create channel chn_ours failed: unknown_connection" });
    expect(unknown.fields).toMatchObject({ error: "unknown_connection", attempts: 0, provider: "" });
  });
});
