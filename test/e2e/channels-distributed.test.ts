import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import type { JunctionProcess } from "../support/junction-process.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

// The channel service's stops across processes: the rollback goes gateway → channel
// → proxy → connection over h2c, and a deletion goes connection → channel → proxy → connection, while
// the connection still exists.

const SECRET = "jct_sk_channels_distributed_0123456789";
const ALICE = "alice@example.com";
const BOB = "bob@example.com";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream();
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    env: { JUNCTION_LOG_LEVEL: "warn" },
  });
  gatewayUrl = junction.gatewayUrl;
  procs.push(...junction.procs);
  const dump = () => procs.map((p) => `--- ${p.name}\n${p.output()}`).join("\n");
  const must = async (what: string, res: Promise<{ status: number; body: unknown }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}\n${dump()}`);
  };
  await must(
    "integration",
    api("POST", "/integrations", {
      unique_key: "cal",
      provider: "google-calendar",
      upstream_overrides: { base_url: fake.url },
    }),
  );
  for (const [id, email] of [
    ["alice", ALICE],
    ["bob", BOB],
  ] as const) {
    const tokens = fake.issueTokens({ email, scopes: ["https://www.googleapis.com/auth/calendar"] });
    await must(
      `connection ${id}`,
      api("POST", "/connections", {
        provider_config_key: "cal",
        connection_id: id,
        credentials: { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 },
      }),
    );
  }
  // Every hop of a stop is up: the channel service (GET /channels), the proxy service (a proxied read).
  await waitFor(
    "the channel and proxy services",
    async () =>
      (await api("GET", "/channels")).status === 200 &&
      (
        await api("GET", "/proxy/calendar/v3/users/me/calendarList/primary", undefined, {
          "provider-config-key": "cal",
          "connection-id": "alice",
        })
      ).status === 200,
    30_000,
    100,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

async function watch(connectionId: string, channelId: string): Promise<void> {
  const res = await api(
    "POST",
    "/proxy/calendar/v3/calendars/primary/events/watch",
    { id: channelId, type: "webhook", address: `${gatewayUrl}/webhook/x/cal` },
    { "provider-config-key": "cal", "connection-id": connectionId },
  );
  expect(res.status).toBe(200);
  await waitFor(`${channelId} in the registry`, () => registryState(channelId), 15_000, 50);
}

async function registryState(channelId: string): Promise<string | undefined> {
  const res = await api("GET", "/channels?integration=cal");
  return (res.body.data as { id: string; state: string }[]).find((c) => c.id === channelId)?.state;
}

const upstreamState = (channelId: string) => fake.state.channels.findLast((c) => c.id === channelId)?.state;

describe("channels in the distributed topology", () => {
  test("deleting a connection stops its channel upstream before the connection goes", async () => {
    await watch("bob", "bob-channel");
    const res = await api("DELETE", "/connection/bob?provider_config_key=cal");
    expect(res.status).toBeLessThan(300);
    expect(upstreamState("bob-channel")).toBe("stopped");
    expect(await registryState("bob-channel")).toBe("stopped");
    expect(fake.changeCalendar(BOB)).toBe(0);
  });

  test("stop-all stops the integration's channels, a channel gone upstream included", async () => {
    await watch("alice", "alice-1");
    await watch("alice", "alice-2");
    // alice-2 stopped upstream behind Junction's back: its stop answers 404.
    const direct = await fetch(`${fake.url}/calendar/v3/channels/stop`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${fake.issueTokens({ email: ALICE }).accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        id: "alice-2",
        resourceId: fake.state.channels.find((c) => c.id === "alice-2")?.resourceId,
      }),
    });
    expect(direct.status).toBe(204);
    const res = await api("POST", "/channels/stop-all", { integration: "cal" });
    expect(res.status).toBe(200);
    expect([...res.body.data.stopped].sort()).toEqual(["alice-1", "alice-2"]);
    expect(res.body.data.gone).toEqual(["alice-2"]);
    expect(res.body.data.failed).toEqual([]);
    expect(upstreamState("alice-1")).toBe("stopped");
    expect(await registryState("alice-1")).toBe("stopped");
    expect(await registryState("alice-2")).toBe("stopped");
  });
});
