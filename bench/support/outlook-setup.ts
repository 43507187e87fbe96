/** Outlook calendar's set-up for bench/notifications.bench.ts (see notification-providers.ts). */
import { randomUUID } from "node:crypto";
import { addIntegration, api, CONNECTIONS, type RunningJunction } from "./notification-contenders.ts";
import { outlookTraffic, type ProviderTraffic, type Subscription } from "./notification-providers.ts";

/** What the bench's receiver has counted for an integration (startReceiver). */
export interface ReceivedCounts {
  received(integration: string): { matched: number; unmatched: number };
}

/** A channel as GET /channels lists it (the fields the bench checks). */
interface ListedChannel {
  id: string;
  kind: string;
  provider_config_key: string;
  connection_id: string;
  resource_uri: string;
  expiration: string | null;
  state: string;
}

/**
 * Outlook calendar on `junction`: integration "outlook" whose base URL is the fake Graph, a connection
 * per user, and one subscription per connection created through Junction's proxy, which the proxy's
 * channel tap records in the channel registry with its clientState. Returns the traffic of each batch
 * size asked for, on that integration.
 *
 * Fails, and nothing is measured, unless GET /channels lists every subscription as an active
 * "subscription" of its connection, with the resource and expiry it was created with, and the registry
 * holds its clientState: GET /channels never shows a channel's token, so a probe posts an item carrying
 * a wrong clientState, then one carrying the right one, and the receiver must get the second only.
 */
export async function setUpOutlook(
  junction: RunningJunction,
  graphUrl: string,
  batches: { provider: "outlook" | "outlook-batch10"; perRequest: number }[],
  receiver: ReceivedCounts,
): Promise<ProviderTraffic[]> {
  const url = await addIntegration(junction, "outlook", "microsoft-outlook-calendar", () => ({}), {
    upstream_overrides: { base_url: graphUrl },
  });
  const subscriptions: (Subscription & { connectionId: string; expiration: string })[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const clientState = `bench-client-state-${i}-${randomUUID()}`;
    const expiration = new Date(Date.now() + 3 * 24 * 3600_000).toISOString();
    const connectionId = `user${i}`;
    const created = await api(
      junction.url,
      "POST",
      "/proxy/v1.0/subscriptions",
      {
        changeType: "created,updated,deleted",
        notificationUrl: url,
        lifecycleNotificationUrl: url,
        resource: "/me/events",
        expirationDateTime: expiration,
        clientState,
      },
      { "provider-config-key": "outlook", "connection-id": connectionId },
    );
    subscriptions.push({ id: created.id, clientState, connectionId, expiration });
  }
  await checkListed(junction, subscriptions);
  await checkClientStates(url, subscriptions, receiver);
  return batches.map((b) => outlookTraffic(b.provider, "outlook", url, subscriptions, b.perRequest));
}

/** Waits (10 s at most) for GET /channels to list every subscription as created; throws with what differs. */
async function checkListed(
  junction: RunningJunction,
  subscriptions: (Subscription & { connectionId: string; expiration: string })[],
): Promise<void> {
  const problemsOf = (channels: ListedChannel[]) => {
    const byId = new Map(channels.map((c) => [c.id, c]));
    return subscriptions.flatMap((s) => {
      const c = byId.get(s.id);
      if (!c) return [`${s.id} (${s.connectionId}) not listed`];
      const expected = {
        kind: "subscription",
        provider_config_key: "outlook",
        connection_id: s.connectionId,
        resource_uri: "/me/events",
        expiration: s.expiration,
        state: "active",
      };
      const wrong = Object.entries(expected).filter(([k, v]) => c[k as keyof ListedChannel] !== v);
      return wrong.length === 0
        ? []
        : [
            `${s.id}: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(c[k as keyof ListedChannel])}, not ${v}`).join(", ")}`,
          ];
    });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const channels = (await api(junction.url, "GET", "/channels?integration=outlook")).data as ListedChannel[];
    const problems = problemsOf(channels);
    if (problems.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `outlook: GET /channels does not list the ${subscriptions.length} subscriptions created through the proxy as created ` +
          `(GET /channels lists ${channels.length} channels; ${problems.length} wrong or missing, e.g. ${problems.slice(0, 3).join("; ")})`,
      );
    }
    await Bun.sleep(100);
  }
}

/**
 * That the registry holds each subscription's clientState (receipt drops an item whose clientState is not
 * its channel's, and a channel recorded without one takes any): an item with a wrong clientState, then one
 * with the right one; the receiver must get exactly one message for "outlook", and only after a pause in
 * which the dropped one would have arrived too.
 */
async function checkClientStates(url: string, subscriptions: Subscription[], receiver: ReceivedCounts) {
  const [first, second] = subscriptions as [Subscription, Subscription];
  const before = receiver.received("outlook");
  const probes = [
    outlookTraffic("outlook", "outlook", url, [{ ...first, clientState: `wrong-${first.clientState}` }], 1),
    outlookTraffic("outlook", "outlook", url, [second], 1),
  ];
  for (const [k, probe] of probes.entries()) {
    const { headers, body } = probe.request(`probe-${k}`, 0);
    const res = await fetch(url, { method: "POST", headers, body });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`outlook: a probe notification answered ${res.status}, not 202`);
  }
  const delta = () => {
    const now = receiver.received("outlook");
    return { matched: now.matched - before.matched, unmatched: now.unmatched - before.unmatched };
  };
  const deadline = Date.now() + 30_000;
  while (delta().matched + delta().unmatched === 0) {
    if (Date.now() > deadline) throw new Error("outlook: the probe with the right clientState was not forwarded");
    await Bun.sleep(20);
  }
  await Bun.sleep(1_000);
  const got = delta();
  if (got.matched !== 1 || got.unmatched !== 0) {
    throw new Error(
      `outlook: after an item with a wrong clientState and one with the right one, the receiver got ${got.matched} ` +
        `messages naming a connection and ${got.unmatched} naming none, not 1 and 0: the registry does not hold the clientStates`,
    );
  }
}
