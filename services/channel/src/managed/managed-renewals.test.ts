import { afterEach, describe, expect, test } from "bun:test";
import { DAY, HOUR, type ManagedHarness, managedHarness, TOPIC } from "../../testing/managed-test-kit.ts";

// Item 4: "a test runs 30 days of renewals in milliseconds and finds exactly one active
// channel per connection at every point", for each provider, on the injected clock.

const CONNECTIONS = ["conn-a", "conn-b", "conn-c"];

const PROVIDERS: { provider: string; settings: Record<string, string>; minRenewals: number; inPlace: boolean }[] = [
  // Calendar channels live a week and cannot be extended: renewed by create-then-stop a day before.
  { provider: "google-calendar", settings: {}, minRenewals: 4, inPlace: false },
  // A mailbox watch is renewed by watching again, once a day (6 days' margin on 7).
  { provider: "google-mail", settings: { pubsub_topic: TOPIC }, minRenewals: 28, inPlace: true },
  // Graph subscriptions (7 days less slack) are extended in place with a PATCH a day before.
  { provider: "microsoft-outlook-calendar", settings: {}, minRenewals: 4, inPlace: true },
];

describe("managed channels: 30 days of renewals", () => {
  let h: ManagedHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const p of PROVIDERS) {
    test(`${p.provider}: exactly one active channel per connection, in the registry and upstream, every hour`, async () => {
      h = await managedHarness(p.provider, { providerSettings: p.settings });
      for (const c of CONNECTIONS) await h.connect(c);
      const seen = new Map<string, Set<string>>(CONNECTIONS.map((c) => [c, new Set()]));
      for (let hour = 0; hour <= 30 * 24; hour++) {
        if (hour > 0) await h.clock.advance(HOUR);
        await h.managed.idle();
        for (const c of CONNECTIONS) {
          const active = await h.active(c);
          if (active.length !== 1 || h.upstream.activeFor(c).length !== 1) {
            throw new Error(
              `hour ${hour}, ${c}: registry ${active.length} active, upstream ${h.upstream.activeFor(c).length}`,
            );
          }
          seen.get(c)?.add(active[0] as string);
        }
      }
      const creates = h.webhooks.filter((w) => w.operation === "created");
      const renewals = h.webhooks.filter((w) => w.operation === "renewed");
      expect(creates.map((w) => w.connectionId).sort()).toEqual(CONNECTIONS);
      expect(h.webhooks.filter((w) => w.operation === "failed")).toEqual([]);
      for (const c of CONNECTIONS) {
        const mine = renewals.filter((w) => w.connectionId === c);
        expect(mine.length).toBeGreaterThanOrEqual(p.minRenewals);
        // In place keeps the channel's id; create-then-stop makes a new one per renewal.
        expect(seen.get(c)?.size).toBe(p.inPlace ? 1 : mine.length + 1);
        const slot = await h.store.managed.getManaged({
          environmentId: "env_managed_test",
          providerConfigKey: "int",
          connectionId: c,
        });
        expect(slot?.attempts).toBe(0);
        expect(slot?.dueAt).toBeGreaterThan(h.clock.now());
      }
      expect(renewals.every((w) => w.managed === true && w.type === "channel")).toBe(true);
    });
  }

  test("a calendar channel watches the account's calendar by its email, so notifications match by rule 2", async () => {
    h = await managedHarness("google-calendar");
    await h.connect("conn-a");
    const [id] = await h.active("conn-a");
    const channel = await h.store.get("env_managed_test", id as string, h.clock.now());
    expect(channel?.resourceUri).toContain("/calendars/conn-a%40example.com/events");
    expect(h.upstream.calls[0]).toBe("GET /calendar/v3/users/me/calendarList/primary conn-a");
  });

  test("renewals fall the provider's margin before the expiry", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    await h.connect("conn-a");
    const [id] = await h.active("conn-a");
    const channel = await h.store.get("env_managed_test", id as string, h.clock.now());
    const slot = await h.store.managed.getManaged({
      environmentId: "env_managed_test",
      providerConfigKey: "int",
      connectionId: "conn-a",
    });
    expect(slot?.dueAt).toBe((channel?.expiration as number) - DAY);
  });
});
