import { describe, expect, test } from "bun:test";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { waitFor } from "../support/wait-for.ts";
import { type ChannelsWorld, DAY, useChannelsWorld, webhooksOfType } from "./channels-kit.ts";

// End to end: an integration with managed_channels gets its connections' channels
// from Junction itself (no script), against the calendar fake, through the embedded topology's wiring.

const world = useChannelsWorld();
const ALICE = "alice@example.com";

async function activeChannels(w: ChannelsWorld, connectionId: string): Promise<Record<string, unknown>[]> {
  const res = await w.j.api("GET", `/channels?integration=cal&connection=${connectionId}&state=active`);
  return res.body.data as Record<string, unknown>[];
}

describe("managed channels (embedded Junction, calendar fake)", () => {
  test("a new connection is watched, its changes forwarded to it, renewed before expiry, stopped at deletion", async () => {
    const w = await world();
    const on = await w.j.api("PATCH", "/integrations/cal", { managed_channels: true });
    expect(on.body.data.managed_channels).toBe(true);
    await w.connect("conn-a", ALICE);
    // An imported connection has no email hash: its metadata names the email (rule 2's second tier).
    await w.j.clients.connection.writeMetadata({
      providerConfigKey: "cal",
      connectionIds: ["conn-a"],
      metadata: { emailAddress: ALICE },
      mode: MetadataWriteMode.UPDATE,
    });

    const [first] = await waitFor("the managed channel", async () => {
      const active = await activeChannels(w, "conn-a");
      return active.length === 1 ? active : undefined;
    });
    const firstId = first?.id as string;
    expect(first?.resource_uri).toContain("alice%40example.com");
    expect(w.upstream(firstId)?.state).toBe("active");
    await waitFor("the created webhook", () =>
      webhooksOfType(w.receiver, "channel").find((b) => b.operation === "created" && b.connectionId === "conn-a"),
    );

    // A change upstream reaches the customer as a forward for the connection (its token checked).
    w.fake.createEvent(ALICE);
    await waitFor("a forward for conn-a", () =>
      webhooksOfType(w.receiver, "forward").find(
        (b) => b.connectionId === "conn-a" && b.payload["x-goog-resource-state"] === "exists",
      ),
    );

    // Six days on (a day before the week's expiry): a new channel, the old one stopped upstream.
    await w.clock.advance(6 * DAY);
    const [second] = await waitFor("the renewed channel", async () => {
      const active = await activeChannels(w, "conn-a");
      return active.length === 1 && active[0]?.id !== firstId ? active : undefined;
    });
    const secondId = second?.id as string;
    expect(w.upstream(firstId)?.state).toBe("stopped");
    expect(w.upstream(secondId)?.state).toBe("active");
    await waitFor("the renewed webhook", () =>
      webhooksOfType(w.receiver, "channel").find((b) => b.operation === "renewed" && b.previousChannelId === firstId),
    );

    const res = await w.j.api("DELETE", "/connection/conn-a?provider_config_key=cal");
    expect(res.status).toBeLessThan(300);
    expect(w.upstream(secondId)?.state).toBe("stopped");
    await w.clock.advance(7 * DAY);
    expect(await activeChannels(w, "conn-a")).toEqual([]);
    expect(w.fake.state.channels.filter((c) => c.ownerEmail === ALICE && w.upstream(c.id)?.state === "active")).toEqual(
      [],
    );
  }, 30_000);
});
