import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { verifyStandard } from "@junction/webhook-service";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { type DistributedJunction, startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  type CustomerReceiver,
  type Delivery,
  eventsUri,
  googHeaders,
  startCustomerReceiver,
} from "./notifications-kit.ts";

// The notification path across processes: gateway → webhook service (JetStream inbound queue) →
// connection service (matching) → JetStream delivery queue → customer receiver.
const SECRET = "jct_sk_distributed_notifications_0123456789";
const URI = eventsUri("ona@example.com");
let nats: Awaited<ReturnType<typeof startNatsServer>>;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";
let junction: DistributedJunction;
let rx: CustomerReceiver;

beforeAll(async () => {
  nats = await startNatsServer();
  rx = startCustomerReceiver();
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    env: { JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true" },
    // The gateway is healthy before the webhook process may be: wait for it to answer through the gateway.
    ready: (url) =>
      waitFor(
        "the webhook process to answer",
        async () => (await fetch(`${url}/webhook-settings`, { headers: { authorization: `Bearer ${SECRET}` } })).ok,
        30_000,
        50,
      ),
  });
  gatewayUrl = junction.gatewayUrl;
  procs.push(...junction.procs);
}, 60_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await rx?.stop();
  await nats?.stop();
  data.remove();
});

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

describe("notifications in the distributed topology", () => {
  test("are recorded, matched, forwarded and signed across processes, and show in the delivery log", async () => {
    const created = await api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    expect(created.status).toBe(200);
    await api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "ona",
      metadata: { calendarWatchResourceUris: [URI] },
      credentials: { type: "OAUTH2", access_token: "access-token-of-ona" },
    });
    await api("PUT", "/webhook-settings", { endpoints: [rx.url] });
    const secret = (await api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret as string;

    const webhookUrl = created.body.data.webhook_url as string;
    const res = await fetch(webhookUrl, { method: "POST", headers: googHeaders(URI, { channelId: "dist-1" }) });
    expect(res.status).toBe(200);
    const [got] = await rx.waitFor(1, 20_000);
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({
      connectionId: "ona",
      providerConfigKey: "cal",
      type: "forward",
    });
    expect(verifyStandard(secret, got?.headers ?? {}, got?.body ?? "", 300, Math.floor(Date.now() / 1000))).toEqual({
      valid: true,
    });
    const duplicate = await fetch(webhookUrl, { method: "POST", headers: googHeaders(URI, { channelId: "dist-1" }) });
    expect(((await duplicate.json()) as { data: { duplicate: boolean } }).data.duplicate).toBe(true);

    const log = await waitFor(
      "the delivered message in the log",
      async () => {
        const list = await api("GET", "/webhook-messages?connection_id=ona");
        return list.body.data[0]?.status === "succeeded" ? list.body.data : null;
      },
      20_000,
    );
    expect(log).toHaveLength(1);
    expect(log[0].id).toBe(got?.headers["webhook-id"]);
  }, 60_000);
});

/** The channel a forwarded notification came from (its payload holds the headers as received). */
const channelOf = (d: Delivery) =>
  (JSON.parse(d.body) as { payload: Record<string, string> }).payload["x-goog-channel-id"] as string;

describe("the webhook service SIGKILLed while notifications arrive", () => {
  test("every answer is a 2xx for a notification recorded (later forwarded) or a 503 to resend; nothing is lost", async () => {
    // The first test set up `cal`, the connection matching URI and the receiver.
    const webhookUrl = (await api("GET", "/integrations/cal?include=webhook")).body.data.webhook_url as string;
    const send = (i: number) =>
      fetch(webhookUrl, { method: "POST", headers: googHeaders(URI, { channelId: `kill-${i}`, number: 1 }) });
    const answers = new Map<number, number>();
    let next = 0;
    // Set once the restarted service listens: the senders go on until 40 more were sent after it.
    let lastIndex = Number.POSITIVE_INFINITY;
    const webhook = () => procs.find((p) => p.name === "webhook" && p.proc.exitCode === null) as JunctionProcess;
    const restart = (async () => {
      try {
        await waitFor("a first part of the notifications answered", () => answers.size >= 40, 30_000, 5);
        await webhook().stop("SIGKILL");
        const again = startJunctionProcess("webhook", ["serve", "webhook"], junction.env);
        procs.push(again);
        await again.listening();
      } finally {
        lastIndex = next + 40;
      }
    })();
    // Eight senders at once, as an upstream's deliveries overlap, before, during and after the kill. A
    // sender answered 503 backs off until the service is back, as an upstream does (Retry-After).
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < lastIndex; i = next++) {
          const status = (await send(i)).status;
          answers.set(i, status);
          if (status === 503) await restart.catch(() => {});
        }
      }),
    );
    await restart;
    const total = answers.size;
    const codes = new Map<number, number>();
    for (const status of answers.values()) codes.set(status, (codes.get(status) ?? 0) + 1);
    // 200 (recorded) or 503 (a dependency failed: resend); never a 409, 499 or other 4xx.
    expect([...codes.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(codes.get(503) ?? 0).toBeGreaterThan(0);

    const forwarded = () => new Set(rx.received.map(channelOf));
    const accepted = [...answers].filter(([, status]) => status === 200).map(([i]) => `kill-${i}`);
    await waitFor("every notification answered 200 forwarded", () => accepted.every((c) => forwarded().has(c)), 45_000);

    // What was answered 503 the upstream sends again: once the service is back, each is recorded and forwarded once.
    const refused = [...answers].filter(([, status]) => status !== 200).map(([i]) => i);
    const resent = await Promise.all(
      refused.map((i) =>
        waitFor(`notification ${i} resent and recorded`, async () => {
          const res = await send(i);
          return res.status === 200 ? res.status : null;
        }),
      ),
    );
    expect(resent).toEqual(refused.map(() => 200));
    await waitFor("every notification forwarded", () => forwarded().size >= total + 1, 45_000);
    const perChannel = new Map<string, Set<string>>();
    for (const d of rx.received) {
      perChannel.set(channelOf(d), (perChannel.get(channelOf(d)) ?? new Set()).add(d.headers["webhook-id"] as string));
    }
    for (let i = 0; i < total; i++) expect({ i, ids: perChannel.get(`kill-${i}`)?.size }).toEqual({ i, ids: 1 });
  }, 180_000);
});
