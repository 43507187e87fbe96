import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { Nango } from "@nangohq/node";
import {
  type DistributedJunction,
  gatewayApi,
  scriptsServiceAnswers,
  startDistributedJunction,
} from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { nangoProject, runNangoCli } from "./nango-cli/nango-project.ts";
import { startTicketsApi, TICKETS, TICKETS_SYNC } from "./nango-cli/tickets-project.ts";

// Nango's own CLI deploys into the distributed topology (a process per service, SQLite per service,
// NATS): the gateway hands the bundles to the scripts process over h2c, the sync runs there against the
// local fake API, and @nangohq/node reads the records back through the gateway. The CLI's type-check
// takes tens of seconds on a loaded machine.
setDefaultTimeout(180_000);

const SECRET = "jct_sk_nango_cli_distributed_0123456789";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let junction: DistributedJunction;
let ticketsApi: ReturnType<typeof startTicketsApi>;
const data = tempDir();

const api = gatewayApi(() => junction.gatewayUrl, SECRET);

beforeAll(async () => {
  nats = await startNatsServer();
  ticketsApi = startTicketsApi();
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    // What a deploy, a sync run and a read need: fewer processes start faster on a loaded machine.
    services: ["connection", "proxy", "scripts"],
    startTimeoutMs: 120_000,
    env: { JUNCTION_LOG_LEVEL: "warn", JUNCTION_SCRIPTS_POOL_SIZE: "1" },
    ready: scriptsServiceAnswers(SECRET),
  });
  const created = await api("POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    upstream_overrides: { base_url: ticketsApi.url },
  });
  expect(created.status).toBe(200);
  const connected = await api("POST", "/connections", {
    provider_config_key: "cal",
    connection_id: "alice",
    credentials: { type: "OAUTH2", access_token: "access-token-of-alice", expires_at: Date.now() + 3_600_000 },
  });
  expect(connected.status).toBeLessThan(300);
}, 180_000);

afterAll(async () => {
  await junction?.stop();
  ticketsApi?.stop();
  await nats?.stop();
  data.remove();
});

describe("nango deploy (Nango's CLI) into the distributed topology", () => {
  test("the project deploys through the gateway to the scripts process; the sync runs there; listRecords reads its records", async () => {
    const project = nangoProject({
      "index.ts": "import './cal/syncs/tickets.js';\n",
      "cal/syncs/tickets.ts": TICKETS_SYNC,
    });
    try {
      const deployed = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm"], {
        hostport: junction.gatewayUrl,
        secretKey: SECRET,
      });
      expect(deployed.output).toContain("Successfully deployed the functions");
      expect(deployed.output).toContain("- tickets@v1.2.0");
      expect(deployed.code).toBe(0);
    } finally {
      project.remove();
    }
    const scripts = (await api("GET", "/scripts")).body.data;
    expect(scripts.map((s: any) => [s.name, s.kind, s.version])).toEqual([["tickets", "sync", 1]]);

    TICKETS.splice(
      0,
      TICKETS.length,
      { id: 1, title: "one", done: true },
      { id: 2, title: "two" },
      { id: 3, title: "three" },
    );
    const nango = new Nango({ secretKey: SECRET, host: junction.gatewayUrl });
    await nango.triggerSync("cal", ["tickets"], "alice");
    const [run] = await waitFor(
      "the sync's run to end",
      async () => {
        const runs = (await api("GET", "/scripts/runs?script=tickets")).body.data ?? [];
        return runs.length === 1 && runs[0].status !== "running" ? runs : null;
      },
      60_000,
      50,
    );
    expect([run.status, run.error]).toEqual(["succeeded", null]);

    const read = { providerConfigKey: "cal", connectionId: "alice", model: "Ticket" };
    const page1 = await nango.listRecords<{ id: string; title: string; done: boolean }>({ ...read, limit: 2 });
    expect(page1.records.map((r) => [r.id, r.title, r.done, r._nango_metadata.last_action])).toEqual([
      ["1", "one", true, "ADDED"],
      ["2", "two", false, "ADDED"],
    ]);
    const rest = await nango.listRecords({ ...read, cursor: page1.next_cursor as string });
    expect(rest.records.map((r) => r.id)).toEqual(["3"]);
    expect(rest.next_cursor).toBeNull();
    const status = (await api("GET", "/sync/status?provider_config_key=cal&syncs=tickets&connection_id=alice")).body;
    expect(status.syncs[0]).toMatchObject({
      status: "SUCCESS",
      recordCount: { Ticket: 3 },
      latest_run_status: "succeeded",
    });
  });
});
