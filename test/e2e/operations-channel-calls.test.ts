import { describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { type ChannelsWorld, DAY, useChannelsWorld } from "./channels-kit.ts";

// The operations log's `channel_call` kind: each upstream call of the managed channels (create, renew by
// create-then-stop, stop) is one operation with its channel, provider, upstream status and duration, and
// never a token.

const world = useChannelsWorld();

/** The channel_call operations matching `filter`, newest first, once there are `n`. */
async function channelCalls(w: ChannelsWorld, n: number, filter = ""): Promise<any[]> {
  return waitFor(`${n} channel_call operations`, async () => {
    const res = await w.j.api("GET", `/logs/operations?kind=channel_call${filter}`);
    return res.body.data?.length >= n ? res.body.data : null;
  });
}

async function activeChannel(w: ChannelsWorld, connectionId: string, not?: string): Promise<string> {
  return waitFor(`${connectionId}'s managed channel`, async () => {
    const res = await w.j.api("GET", `/channels?integration=cal&connection=${connectionId}&state=active`);
    const active = res.body.data as { id: string }[];
    return active.length === 1 && active[0]?.id !== not ? active[0]?.id : undefined;
  });
}

describe("the operations log records managed channel calls", () => {
  test("a creation, a renewal's create and stop, a deletion's stop, and a call that fails, with no token", async () => {
    const w = await world();
    expect((await w.j.api("PATCH", "/integrations/cal", { managed_channels: true })).status).toBe(200);
    await w.connect("conn-a", "alice@example.com");
    const firstId = await activeChannel(w, "conn-a");
    const [created] = await channelCalls(w, 1);
    expect(created).toMatchObject({
      status: "success",
      integration: "cal",
      connection: "conn-a",
      title: `create channel ${firstId} → 200`,
    });
    expect(created.tags).toContain(`channel:${firstId}`);
    const detail = (await w.j.api("GET", `/logs/operations/${created.id}`)).body.data;
    expect(detail.messages[0].fields).toMatchObject({
      action: "create",
      channelId: firstId,
      upstreamStatus: 200,
      attempts: 1,
    });
    expect(detail.messages[0].fields.provider).toBeString();
    expect(created.tags).toContain(`provider:${detail.messages[0].fields.provider}`);

    // A day before the week's expiry: a new channel, then the old one stopped.
    await w.clock.advance(6 * DAY);
    const secondId = await activeChannel(w, "conn-a", firstId);
    const [stopped] = await channelCalls(w, 1, `&tag=channel:${firstId}&q=stop`);
    expect(stopped).toMatchObject({ status: "success", title: `stop channel ${firstId} → 204` });
    const second = await channelCalls(w, 1, `&tag=channel:${secondId}`);
    expect(second.map((o) => o.title)).toEqual([`create channel ${secondId} → 200`]);

    // Deleting the connection stops its channel (the StopChannels path).
    expect((await w.j.api("DELETE", "/connection/conn-a?provider_config_key=cal")).status).toBeLessThan(300);
    await channelCalls(w, 2, `&tag=channel:${secondId}`);

    // A stop whose connection's access was revoked upstream: the call fails, recorded with its stable code.
    await w.connect("conn-b", "bob@example.com");
    const bobs = await activeChannel(w, "conn-b");
    const { credentials } = await w.j.clients.connection.getCredentials({
      providerConfigKey: "cal",
      connectionId: "conn-b",
    });
    w.fake.revokeRefreshToken(credentials?.refreshToken as string);
    await w.clock.advance(2 * 3_600_000);
    expect((await w.j.api("DELETE", "/connection/conn-b?provider_config_key=cal")).status).toBeLessThan(300);
    const [failed] = await channelCalls(w, 1, "&connection=conn-b&status=failed");
    expect(failed.title).toMatch(new RegExp(`^stop channel ${bobs} failed: [a-z_]+$`));
    expect(failed.title).not.toContain("internal_error");

    const all = (await w.j.api("GET", "/logs/operations?kind=channel_call&limit=500")).body.data as { id: string }[];
    const stored = JSON.stringify(
      await Promise.all(all.map(async (o) => (await w.j.api("GET", `/logs/operations/${o.id}`)).body)),
    );
    for (const secret of [credentials?.accessToken, credentials?.refreshToken, "channels-secret-do-not-log"]) {
      expect(secret).toBeString();
      expect(stored).not.toContain(secret as string);
    }
    // Nor the channels' own tokens (each managed channel's secret, as the fake holds it).
    for (const c of w.fake.state.channels) if (c.token) expect(stored).not.toContain(c.token);
  }, 60_000);
});
