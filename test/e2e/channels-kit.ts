import { afterEach } from "bun:test";
import { ManualClock } from "@junction/platform";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type CustomerReceiver, startCustomerReceiver } from "./notifications-kit.ts";
import { calendarIntegration } from "./oauth-e2e-kit.ts";

// Shared by the channels-*.test.ts files: an embedded Junction and the fake upstream on one manual
// clock, a calendar integration pointed at the fake, connections holding the fake's tokens, and
// channels created through Junction's proxy as a customer's script would.

export const CLIENT = { clientId: "junction-channels.apps.fake", clientSecret: "channels-secret-do-not-log" };
export const CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar";
export const DAY = 24 * 3_600_000;

export interface ChannelsWorld {
  clock: ManualClock;
  fake: FakeUpstream;
  j: TestJunction;
  receiver: CustomerReceiver;
  /** The integration's webhook URL: the address of its channels. */
  webhookUrl(key?: string): Promise<string>;
  /** Imports a connection with fresh tokens of `email` minted by the fake. */
  connect(connectionId: string, email: string, key?: string): Promise<void>;
  /** Creates a channel on the user's primary calendar through /proxy; returns the watch response. */
  watch(
    connectionId: string,
    channelId: string,
    options?: { key?: string; expiration?: number },
  ): Promise<{ id: string; resourceId: string; resourceUri: string }>;
  /** The registry's view of a channel, through GET /channels. */
  registry(channelId: string, key?: string): Promise<Record<string, unknown> | undefined>;
  /** The upstream's view of a channel (its latest life). */
  upstream(channelId: string): ReturnType<FakeUpstream["state"]["channels"]["find"]>;
}

/** Starts a fresh world per test (integration `cal` included) and stops it after. */
export function useChannelsWorld(): () => Promise<ChannelsWorld> {
  const running: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });
  return async () => {
    const clock = new ManualClock();
    const fake = await startFakeUpstream({ clients: [CLIENT], now: () => clock.now() });
    running.push(() => fake.stop());
    const receiver = startCustomerReceiver();
    running.push(() => receiver.stop());
    // Tests move the clock by days: hourly housekeeping keeps the number of timers fired small.
    const j = await startTestJunction({
      clock,
      env: {
        JUNCTION_CHANNEL_SWEEP_INTERVAL_MS: "3600000",
        JUNCTION_CHANNEL_MANAGED_POLL_INTERVAL_MS: "3600000",
        JUNCTION_WEBHOOK_SWEEP_INTERVAL: "1h",
        JUNCTION_SCRIPTS_SCHEDULER_POLL_MS: "3600000",
      },
    });
    running.push(() => j.close());
    const world: ChannelsWorld = {
      clock,
      fake,
      j,
      receiver,
      async webhookUrl(key = "cal") {
        const res = await j.api("GET", `/integrations/${key}?include=webhook`);
        return res.body.data.webhook_url as string;
      },
      async connect(connectionId, email, key = "cal") {
        const tokens = fake.issueTokens({ email, clientId: CLIENT.clientId, scopes: [CALENDAR_SCOPE] });
        const res = await j.api("POST", "/connections", {
          provider_config_key: key,
          connection_id: connectionId,
          credentials: {
            type: "OAUTH2",
            access_token: tokens.accessToken,
            refresh_token: tokens.refreshToken,
            expires_at: clock.now() + tokens.expiresIn * 1000,
          },
        });
        if (res.status >= 300) throw new Error(`connection ${connectionId}: ${res.status} ${res.text}`);
      },
      async watch(connectionId, channelId, options = {}) {
        const key = options.key ?? "cal";
        const res = await j.api(
          "POST",
          "/proxy/calendar/v3/calendars/primary/events/watch",
          {
            id: channelId,
            type: "webhook",
            address: await world.webhookUrl(key),
            expiration: options.expiration ?? clock.now() + 7 * DAY,
          },
          { "provider-config-key": key, "connection-id": connectionId },
        );
        if (res.status !== 200) throw new Error(`watch ${channelId}: ${res.status} ${res.text}`);
        // The proxy reports the call to the registry on the bus: wait until it is recorded.
        await waitFor(`channel ${channelId} in the registry`, () => world.registry(channelId, key));
        return res.body;
      },
      async registry(channelId, key = "cal") {
        const res = await j.api("GET", `/channels?integration=${encodeURIComponent(key)}`);
        return (res.body.data as Record<string, unknown>[]).find((c) => c.id === channelId);
      },
      upstream: (channelId) => fake.state.channels.findLast((c) => c.id === channelId),
    };
    await integration(world, "cal");
    const settings = await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] });
    if (settings.status !== 200) throw new Error(`webhook settings: ${settings.text}`);
    return world;
  };
}

/** Creates a calendar integration whose upstream is the fake. */
export async function integration(world: ChannelsWorld, key: string): Promise<void> {
  const res = await world.j.api("POST", "/integrations", calendarIntegration(world.fake, key, CLIENT));
  if (res.status !== 200) throw new Error(`integration ${key}: ${res.status} ${res.text}`);
}

/** Bodies of the deliveries the customer receiver got, of one webhook type. */
export function webhooksOfType(receiver: CustomerReceiver, type: string): Record<string, any>[] {
  return receiver.received.map((d) => JSON.parse(d.body)).filter((b) => b.type === type);
}
