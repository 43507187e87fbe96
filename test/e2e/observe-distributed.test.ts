import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { type DistributedJunction, startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

const SECRET = "jct_sk_observe_distributed_0123456789";
const METRICS_TOKEN = "metrics-token-distributed-0123";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let junction: DistributedJunction;
const data = tempDir();

beforeAll(async () => {
  nats = await startNatsServer();
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook"],
    env: { JUNCTION_METRICS_TOKEN: METRICS_TOKEN },
  });
}, 60_000);

afterAll(async () => {
  await junction?.stop();
  await nats?.stop();
  data.remove();
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
    expect(gateway.body.checked).toEqual(["service:connection", "service:proxy", "service:channel", "service:webhook"]);
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
