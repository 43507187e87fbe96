import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import type { JunctionProcess } from "../support/junction-process.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

const SECRET = "jct_sk_operations_distributed_0123456789";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";

beforeAll(async () => {
  nats = await startNatsServer();
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection", "proxy", "channel", "webhook", "logs"],
    startTimeoutMs: 120_000,
  });
  gatewayUrl = junction.gatewayUrl;
  procs.push(...junction.procs);
}, 180_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await nats?.stop();
  data.remove();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gatewayUrl}${path}`, { headers: { authorization: `Bearer ${SECRET}`, ...headers } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("the operations log across processes", () => {
  test("the gateway's proxy call reaches the logs process over the bus, and reads back through the gateway", async () => {
    const call = await get("/proxy/calendars", { "provider-config-key": "nope", "connection-id": "nobody" });
    expect(call.status).toBe(404);
    const [op] = await waitFor(
      "the proxy call in the log",
      async () => {
        const found = (await get("/logs/operations?kind=proxy_call")).body.data?.filter(
          (o: any) => o.integration === "nope",
        );
        return found?.length ? found : null;
      },
      20_000,
      100,
    );
    expect(op).toMatchObject({ kind: "proxy_call", status: "failed", connection: "nobody" });
    const detail = await get(`/logs/operations/${op.id}`);
    expect(detail.body.data.messages[0].text).toContain("unknown_provider_config");
    expect((await get("/logs/operations?kind=teleport")).body.error.code).toBe("unknown_kind");
  });

  test("the connection process's authorization attempt reaches the logs process too", async () => {
    const start = await fetch(`${gatewayUrl}/oauth/connect/cal?connect_session_token=not-a-session`, {
      redirect: "manual",
      headers: { accept: "application/json" },
    });
    expect(start.status).toBe(401);
    const [op] = await waitFor(
      "the authorization in the log",
      async () => {
        const found = (await get("/logs/operations?kind=authorization")).body.data;
        return found?.length ? found : null;
      },
      20_000,
      100,
    );
    expect(op).toMatchObject({
      status: "refused",
      integration: "cal",
      title: "cal: authorization failed at start: unknown_connect_session_token",
    });
  });
});
