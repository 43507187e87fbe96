import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { verifyStandard } from "@junction/webhook-service";
import type { JunctionProcess } from "../support/junction-process.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { type CustomerReceiver, eventsUri, googHeaders, startCustomerReceiver } from "./notifications-kit.ts";

// The notification path across processes: gateway → webhook service (JetStream inbound queue) →
// connection service (matching) → JetStream delivery queue → customer receiver.
const SECRET = "jct_sk_distributed_notifications_0123456789";
const URI = eventsUri("ona@example.com");
let nats: Awaited<ReturnType<typeof startNatsServer>>;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";
let rx: CustomerReceiver;

beforeAll(async () => {
  nats = await startNatsServer();
  rx = startCustomerReceiver();
  const junction = await startDistributedJunction({
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
