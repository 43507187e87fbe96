import { afterAll, describe, expect, test } from "bun:test";
import { type InboundNotification, type NotificationItem, providerAdapter } from "@junction/providers";
import {
  gmailTraffic,
  outlookTraffic,
  PUSH_AUDIENCE,
  type ProviderTraffic,
  selectProviders,
  startPushKeys,
} from "./notification-providers.ts";

/** What the provider's adapter reads of the traffic's `i`-th request of run "r1", with `settings`. */
async function read(provider: string, traffic: ProviderTraffic, i: number, settings: Record<string, string> = {}) {
  const { headers, body } = traffic.request("r1", i);
  const notification: InboundNotification = {
    headers,
    body: new TextEncoder().encode(body ?? ""),
    query: "",
    contentType: headers["content-type"] ?? "",
  };
  const read = providerAdapter(provider)?.notifications?.read;
  if (!read) throw new Error(`${provider} reads no notifications`);
  return read(notification, { settings, now: Date.now(), fetch });
}

const itemsOf = (reading: Awaited<ReturnType<typeof read>>): NotificationItem[] =>
  reading.kind === "notifications" ? reading.items : [];

describe("BENCH_PROVIDERS", () => {
  test("all by default, calendar always, in a fixed order; an unknown name refused", () => {
    expect(selectProviders(undefined)).toEqual(["calendar", "gmail", "gmail-oidc", "outlook", "outlook-batch10"]);
    expect(selectProviders(" outlook-batch10, gmail ")).toEqual(["calendar", "gmail", "outlook-batch10"]);
    expect(selectProviders("calendar")).toEqual(["calendar"]);
    expect(() => selectProviders("gmail,teams")).toThrow("unknown teams");
  });
});

describe("the bench's requests are what the adapters read", () => {
  const keys = startPushKeys(3);
  afterAll(async () => (await keys).stop());

  test("gmail: a push for the i-th mailbox, a new messageId each, matched by email", async () => {
    const traffic = gmailTraffic("gmail", "gmail", "http://x/webhook", 100);
    const [a] = itemsOf(await read("google-mail", traffic, 7));
    const [b] = itemsOf(await read("google-mail", traffic, 107));
    expect(a?.match).toEqual({ by: "email", email: "user7@example.com" });
    expect(b?.match).toEqual({ by: "email", email: "user7@example.com" });
    expect(a?.dedupeKey).not.toBe(b?.dedupeKey);
    expect(traffic.acceptStatus).toBe(200);
  });

  test("gmail-oidc: the precomputed tokens verify against the served keys; a stranger's does not", async () => {
    const k = await keys;
    const settings = { pubsub_audience: PUSH_AUDIENCE, pubsub_jwks_url: k.jwksUrl };
    const traffic = gmailTraffic("gmail-oidc", "gmail-oidc", "http://x/webhook", 100, k.tokens);
    for (let i = 0; i < 3; i++) expect(itemsOf(await read("google-mail", traffic, i, settings))).toHaveLength(1);
    const stranger = gmailTraffic("gmail-oidc", "gmail-oidc", "http://x/webhook", 100, [k.stranger]);
    expect(await read("google-mail", stranger, 0, settings)).toMatchObject({ kind: "refused", status: 403 });
  });

  test("outlook: batches of the subscriptions in turn, with their clientState, a new dedupe key each", async () => {
    const subscriptions = [
      { id: "sub-a", clientState: "state-a" },
      { id: "sub-b", clientState: "state-b" },
    ];
    const batch = outlookTraffic("outlook-batch10", "outlook", "http://x/webhook", subscriptions, 10);
    const items = itemsOf(await read("microsoft-outlook-calendar", batch, 1));
    expect(items).toHaveLength(10);
    expect(items.map((i) => [i.channelId, i.token])).toEqual(
      Array.from({ length: 10 }, (_, j) => (j % 2 === 0 ? ["sub-a", "state-a"] : ["sub-b", "state-b"])),
    );
    expect(new Set(items.map((i) => i.dedupeKey)).size).toBe(10);
    expect(items.every((i) => i.match?.by === "channel" && i.lifecycle === undefined)).toBe(true);
    const single = outlookTraffic("outlook", "outlook", "http://x/webhook", subscriptions, 1);
    const [first] = itemsOf(await read("microsoft-outlook-calendar", single, 0));
    const [again] = itemsOf(await read("microsoft-outlook-calendar", single, 2));
    expect(first?.channelId).toBe(again?.channelId as string);
    expect(first?.dedupeKey).not.toBe(again?.dedupeKey);
    expect(single.acceptStatus).toBe(202);
  });
});
