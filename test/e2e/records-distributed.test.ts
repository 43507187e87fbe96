import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { startDistributedJunction } from "../support/distributed-junction.ts";
import type { JunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { sseReader } from "./sse-reader.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(90_000);

const SECRET = "jct_sk_records_distributed_0123456789";
/** A sync that saves three records of its connection's id. */
const SYNC = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  models: { Item: { type: "object", properties: { id: { type: "string" }, owner: { type: "string" } }, required: ["id"] } },
  exec: async (nango) => {
    await nango.batchSave(["1", "2", "3"].map((id) => ({ id, owner: nango.connectionId })), "Item");
  },
});
`;
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}
const connect = (connectionId: string) =>
  api("POST", "/connections", {
    provider_config_key: "cal",
    connection_id: connectionId,
    credentials: { type: "OAUTH2", access_token: fake.issueTokens({ email: "a@example.com" }).accessToken },
  });
const records = (connectionId: string) =>
  api("GET", "/records?model=Item", undefined, { "connection-id": connectionId, "provider-config-key": "cal" });
async function syncOnce(connectionId: string, count: number) {
  const res = await api("POST", "/sync/trigger", {
    provider_config_key: "cal",
    connection_id: connectionId,
    syncs: ["items"],
  });
  expect(res.status).toBe(200);
  await waitFor(
    `${count} finished runs of ${connectionId}`,
    async () => {
      const runs = (await api("GET", `/scripts/runs?connection_id=${connectionId}&script=items`)).body.data ?? [];
      return runs.length >= count && runs.every((r: any) => r.status === "succeeded");
    },
    30_000,
    50,
  );
}

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream();
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    env: { JUNCTION_LOG_LEVEL: "warn", JUNCTION_SCRIPTS_POOL_SIZE: "1" },
    ready: (url) =>
      waitFor(
        "the scripts service to answer",
        async () => (await fetch(`${url}/scripts`, { headers: { authorization: `Bearer ${SECRET}` } })).status === 200,
        30_000,
        50,
      ),
  });
  gatewayUrl = junction.gatewayUrl;
  procs.push(...junction.procs);
  await api("POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    upstream_overrides: { base_url: fake.url },
  });
}, 200_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

describe("records in the distributed topology", () => {
  test("the change feed crosses from the scripts process; a deleted connection's records go and its feed ends", async () => {
    expect((await api("POST", "/scripts", { provider_config_key: "cal", name: "items", source: SYNC })).status).toBe(
      201,
    );
    expect((await connect("alice")).status).toBe(200);
    expect((await connect("bob")).status).toBe(200);
    const res = await fetch(`${gatewayUrl}/records/changes?model=Item`, {
      headers: { authorization: `Bearer ${SECRET}`, "connection-id": "alice", "provider-config-key": "cal" },
    });
    expect(res.status).toBe(200);
    const feed = sseReader(res.body as ReadableStream<Uint8Array>);
    await syncOnce("alice", 1);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(JSON.parse((await feed.nextRecord())?.data ?? "null"));
    expect(seen.map((r) => [r.id, r.owner])).toEqual([
      ["1", "alice"],
      ["2", "alice"],
      ["3", "alice"],
    ]);
    await syncOnce("bob", 1);

    expect((await api("DELETE", "/connection/alice?provider_config_key=cal")).status).toBe(200);
    // The feed of the deleted connection ends; its records are gone, Bob's are kept.
    expect(await feed.nextRecord()).toBeNull();
    expect((await records("alice")).body.error.code).toBe("unknown_connection");
    expect((await records("bob")).body.records.map((r: any) => r.owner)).toEqual(["bob", "bob", "bob"]);
    expect((await connect("alice")).status).toBe(200);
    expect((await records("alice")).body).toEqual({ next_cursor: null, records: [] });
  });
});
