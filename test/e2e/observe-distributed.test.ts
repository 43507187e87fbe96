import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import type { TestJunction } from "../support/embedded-junction.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.ts";
import { type DistributedJunction, startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { eventsUri, googHeaders, setupCalendar, startCustomerReceiver } from "./notifications-kit.ts";

const SECRET = "jct_sk_observe_distributed_0123456789";
const METRICS_TOKEN = "metrics-token-distributed-0123";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let junction: DistributedJunction;
let otlp: OtlpReceiver;
const rx = startCustomerReceiver();
const data = tempDir();

beforeAll(async () => {
  nats = await startNatsServer();
  otlp = startOtlpReceiver();
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    env: {
      JUNCTION_METRICS_TOKEN: METRICS_TOKEN,
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    },
  });
}, 60_000);

afterAll(async () => {
  await junction?.stop();
  await nats?.stop();
  await otlp?.stop();
  await rx.stop();
  data.remove();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${junction.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

describe("a notification's trace across processes", () => {
  test("gateway → webhook (h2c) → inbound worker (NATS headers) → connection (h2c) → delivery: one trace", async () => {
    await setupCalendar({ api } as unknown as TestJunction, [rx.url]);
    const uri = eventsUri("ona@example.com");
    const connection = await api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "ona",
      metadata: { calendarWatchResourceUris: [uri] },
      credentials: { type: "OAUTH2", access_token: "access-token-of-ona" },
    });
    expect(connection.status).toBeLessThan(300);
    const webhookUrl = (await api("GET", "/integrations/cal?include=webhook")).body.data.webhook_url as string;
    const trace = "5bf92f3577b34da6a3ce929d0e0e4737";
    const res = await fetch(webhookUrl.replace(/^https?:\/\/[^/]+/, junction.gatewayUrl), {
      method: "POST",
      headers: { ...googHeaders(uri), traceparent: `00-${trace}-10f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(200);
    await rx.waitFor(1, 20_000);
    const inTrace = (s: ReceivedSpan) => s.traceId === trace;
    const named = (what: string, service: string, name: string) =>
      otlp.span(what, (s) => inTrace(s) && s.service === `junction-${service}` && s.name === name, 20_000);
    const receipt = await otlp.span(
      "the gateway's span",
      (s) => inTrace(s) && s.service === "junction-gateway" && s.kind === 2,
    );
    expect(receipt.parentSpanId).toBe("10f067aa0ba902b7");
    const received = await named("receipt", "webhook", "junction.webhook.v1.WebhookService/ReceiveNotifications");
    const processed = await named("the inbound worker", "webhook", "process webhook.inbound");
    const match = await named("matching", "connection", "junction.connection.v1.ConnectionService/MatchNotifications");
    const round = await named("the delivery round", "webhook", "webhook delivery round");
    // Each step's parent chain reaches the step before it, across the processes' exports.
    const above = (s: ReceivedSpan) => {
      const ids: string[] = [];
      for (let p = s.parentSpanId; p; p = otlp.spans.find((x) => x.spanId === p)?.parentSpanId) ids.push(p);
      return ids;
    };
    expect(above(received)).toContain(receipt.spanId);
    expect(above(processed)).toContain(received.spanId);
    expect(above(match)).toContain(processed.spanId);
    expect(above(round)).toContain(processed.spanId);
  }, 40_000);
});

interface Ready {
  status: string;
  checked: string[];
  missing?: { name: string; reason: string }[];
}

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${url}/ready`);
  return { status: res.status, body: (await res.json()) as Ready };
}

const missingNames = (r: { body: Ready }) => (r.body.missing ?? []).map((m) => m.name).sort();

describe("/metrics and /ready in the distributed topology", () => {
  test("every process is ready, and each service's admin port names its store, bus and peers", async () => {
    const gateway = await ready(junction.gatewayUrl);
    expect(gateway.status).toBe(200);
    // The gateway holds the frontend SDK's sockets and hears authorizations ended by another gateway over NATS;
    // it keeps the MCP URLs' clients and tokens in a store of its own.
    expect(gateway.body.checked).toEqual([
      "service:connection",
      "service:proxy",
      "service:channel",
      "service:webhook",
      "bus",
      "mcp_auth_store",
    ]);
    const webhook = await ready(junction.adminUrls.webhook as string);
    expect(webhook.status).toBe(200);
    expect(webhook.body.checked).toEqual(["store", "bus", "service:connection", "service:channel"]);
  });

  test("each service process serves its own metrics on its admin port, for the metrics token only", async () => {
    const url = `${junction.adminUrls.connection}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${SECRET}` } })).status).toBe(401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("# TYPE junction_token_refreshes_total counter");
    const gateway = await fetch(`${junction.gatewayUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(await gateway.text()).toContain("# TYPE junction_http_requests_total counter");
  });

  test("a killed service process is named by /ready on the gateway and on its callers; /health stays 200", async () => {
    const proxy = junction.procs.find((p) => p.name === "proxy");
    await proxy?.stop("SIGKILL");
    const gateway = await ready(junction.gatewayUrl);
    expect(gateway.status).toBe(503);
    expect(missingNames(gateway)).toEqual(["service:proxy"]);
    expect(gateway.body.missing?.[0]?.reason).toContain("the proxy service does not answer");
    const channel = await ready(junction.adminUrls.channel as string);
    expect(channel.status).toBe(503);
    expect(missingNames(channel)).toEqual(["service:proxy"]);
    expect((await fetch(`${junction.adminUrls.channel}/health`)).status).toBe(200);
  });

  test("a stopped NATS is named by /ready as the bus of each service process", async () => {
    await nats.stop();
    await waitFor(
      "the webhook service to report its bus missing",
      async () => missingNames(await ready(junction.adminUrls.webhook as string)).includes("bus"),
      15_000,
      100,
    );
    const webhook = await ready(junction.adminUrls.webhook as string);
    expect(webhook.status).toBe(503);
    expect(missingNames(webhook)).toEqual(["bus"]);
  }, 30_000);
});
