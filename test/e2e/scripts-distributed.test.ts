import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import {
  type FakeUpstream,
  startFakeUpstream,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../fake-upstream/index.ts";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { scriptsServiceAnswers, startDistributedJunction } from "../support/distributed-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { onEventSource, syncSource } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

/** The scripts service as its own process: lifecycle jobs over NATS, RPCs over h2c, the proxy logic in-process. */
const SECRET = "jct_sk_scripts_distributed_0123456789";
const ALICE = "alice@example.com";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
let receiver: WebhookReceiver;
const procs: JunctionProcess[] = [];
const data = tempDir();
let gatewayUrl = "";
let env: Record<string, string> = {};

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Creates connection `connectionId` of "cal" with a fresh token of `email`. */
function connectAs(connectionId: string, email: string) {
  const tokens = fake.issueTokens({ email });
  return api("POST", "/connections", {
    provider_config_key: "cal",
    connection_id: connectionId,
    credentials: { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 },
  });
}

const finishedRuns = (query: string, count: number) =>
  waitFor(
    `${count} finished runs for ${query}`,
    async () => {
      const runs = (await api("GET", `/scripts/runs?${query}`)).body.data ?? [];
      return runs.length >= count && runs.every((r: any) => r.status !== "running") ? runs : null;
    },
    30_000,
    50,
  );

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream();
  receiver = startWebhookReceiver();
  const junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    env: {
      JUNCTION_LOG_LEVEL: "warn",
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
      JUNCTION_SCRIPTS_POOL_SIZE: "1",
      // A short run deadline and queue timeout keep a job's ack wait (the queue timeout, twice the
      // deadline, plus 30 s) short for the kill test below.
      JUNCTION_SCRIPTS_TIMEOUT_MS: "4000",
      JUNCTION_SCRIPTS_QUEUE_TIMEOUT_MS: "2000",
    },
    // Every process is up once the scripts service answers through the gateway.
    ready: scriptsServiceAnswers(SECRET),
  });
  gatewayUrl = junction.gatewayUrl;
  env = junction.env;
  procs.push(...junction.procs);
  await api("POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    upstream_overrides: { base_url: fake.url },
  });
  await api("PUT", "/webhook-settings", { endpoints: [receiver.url] });
}, 60_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await receiver?.stop();
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

describe("scripts in the distributed topology", () => {
  test("lifecycle scripts, /sync/trigger and onWebhook run in the scripts process", async () => {
    const deploy = (name: string, source: string) =>
      api("POST", "/scripts", { provider_config_key: "cal", name, source });
    expect(
      (
        await deploy(
          "on-create",
          onEventSource(
            "post-connection-creation",
            `const res = await nango.get({ endpoint: "/calendar/v3/users/me/calendarList/primary" });
             await nango.updateMetadata({ primaryCalendar: res.data.id });`,
          ),
        )
      ).status,
    ).toBe(201);
    expect((await deploy("on-delete", onEventSource("pre-connection-deletion", "nango.log('bye');"))).status).toBe(201);
    expect(
      (
        await deploy(
          "changes",
          syncSource(
            "nango.log('synced');",
            `\n  webhookSubscriptions: ["*"],\n  onWebhook: async (nango, m) => { nango.log(m.payload["x-goog-resource-state"]); }`,
          ),
        )
      ).status,
    ).toBe(201);

    const tokens = fake.issueTokens({ email: ALICE, scopes: ["https://www.googleapis.com/auth/calendar"] });
    const created = await api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: "alice",
      credentials: { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 },
      metadata: { emailAddress: ALICE },
    });
    expect(created.status).toBe(200);
    const [onCreate] = await finishedRuns("script=on-create", 1);
    expect(onCreate.status).toBe("succeeded");
    expect((await api("GET", "/connection/alice?provider_config_key=cal")).body.metadata.primaryCalendar).toBe(ALICE);

    const trigger = await api("POST", "/sync/trigger", {
      provider_config_key: "cal",
      connection_id: "alice",
      syncs: ["changes"],
    });
    expect(trigger.body.success).toBe(true);
    expect((await finishedRuns("script=changes&trigger=manual", 1))[0].status).toBe("succeeded");

    // A channel through the proxy: its "sync" notification goes to onWebhook, not to the receiver.
    const webhookUrl = (await api("GET", "/integrations/cal?include=webhook")).body.data.webhook_url;
    const watch = await fetch(`${gatewayUrl}/proxy/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "provider-config-key": "cal",
        "connection-id": "alice",
        "content-type": "application/json",
      },
      body: JSON.stringify({ id: "dist-channel", type: "web_hook", address: webhookUrl }),
    });
    expect(watch.status).toBe(200);
    const [hook] = await finishedRuns("trigger=webhook", 1);
    expect(hook).toMatchObject({ script_name: "changes", connection_id: "alice", status: "succeeded" });

    expect((await api("DELETE", "/connection/alice?provider_config_key=cal")).status).toBe(200);
    const [onDelete] = await finishedRuns("script=on-delete", 1);
    expect(onDelete.status).toBe("succeeded");
    expect(receiver.received.filter((r) => JSON.parse(r.body).connectionId === "alice")).toEqual([]);
  }, 90_000);

  test("actions answer through the gateway, synchronously and by id (async)", async () => {
    const source = `export default createAction({ exec: async (nango, input) => ({ twice: input.n * 2, by: nango.connectionId }) });`;
    expect((await api("POST", "/scripts", { provider_config_key: "cal", name: "double", source })).status).toBe(201);
    expect((await connectAs("dave", "dave@example.com")).status).toBe(200);
    const trigger = (async: boolean) =>
      fetch(`${gatewayUrl}/action/trigger`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${SECRET}`,
          "content-type": "application/json",
          "provider-config-key": "cal",
          "connection-id": "dave",
          ...(async ? { "x-async": "true" } : {}),
        },
        body: JSON.stringify({ action_name: "double", input: { n: 21 } }),
      });
    const now = await trigger(false);
    expect([now.status, await now.json()]).toEqual([200, { twice: 42, by: "dave" }]);
    const later = await trigger(true);
    expect(later.status).toBe(202);
    const { statusUrl } = (await later.json()) as { statusUrl: string };
    const result = await waitFor("the async action's result", async () => {
      const res = await api("GET", statusUrl);
      return res.status === 404 ? null : res;
    });
    expect(result).toEqual({ status: 200, body: { twice: 42, by: "dave" } });
  });

  test("with the scripts process down, deletions proceed (logged at error) and creations wait in the queue", async () => {
    const scripts = procs.find((p) => p.name === "scripts");
    await scripts?.stop();
    const connect = (id: string) => {
      const tokens = fake.issueTokens({ email: ALICE, scopes: ["https://www.googleapis.com/auth/calendar"] });
      return api("POST", "/connections", {
        provider_config_key: "cal",
        connection_id: id,
        credentials: { type: "OAUTH2", access_token: tokens.accessToken, expires_at: Date.now() + 3_600_000 },
      });
    };
    expect((await connect("bob")).status).toBe(200);
    expect((await connect("carol")).status).toBe(200);
    expect((await api("DELETE", "/connection/carol?provider_config_key=cal")).status).toBe(200);
    expect((await api("GET", "/connection/carol?provider_config_key=cal")).status).toBe(404);
    const connection = procs.find((p) => p.name === "connection");
    const line = await waitFor("the error line", () =>
      connection
        ?.output()
        .split("\n")
        .find((l) => l.includes("pre-connection-deletion scripts did not run")),
    );
    expect(JSON.parse(line).level).toBe("error");

    // Back up: bob's post-connection-creation job was kept (NATS JetStream) and runs now; carol's is
    // dropped, her connection being gone.
    procs.splice(
      procs.indexOf(scripts as JunctionProcess),
      1,
      startJunctionProcess("scripts", ["serve", "scripts"], env),
    );
    const [bob] = await finishedRuns("connection_id=bob", 1);
    expect(bob).toMatchObject({ script_name: "on-create", status: "succeeded" });
    expect((await api("GET", "/scripts/runs?connection_id=carol")).body.data).toEqual([]);
  }, 90_000);

  test("an async action whose scripts process is killed mid-run is completed by the next one, with its webhook", async () => {
    // The first run marks the connection and hangs; the one after the kill answers.
    const source = `export default createAction({ exec: async (nango) => {
      if ((await nango.getMetadata()).claimed) return { by: "second" };
      await nango.updateMetadata({ claimed: true });
      await new Promise((r) => setTimeout(r, 3500));
      return { by: "first" };
    } });`;
    expect((await api("POST", "/scripts", { provider_config_key: "cal", name: "handover", source })).status).toBe(201);
    expect((await connectAs("erin", "erin@example.com")).status).toBe(200);
    const accepted = await fetch(`${gatewayUrl}/action/trigger`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "content-type": "application/json",
        "provider-config-key": "cal",
        "connection-id": "erin",
        "x-async": "true",
      },
      body: JSON.stringify({ action_name: "handover" }),
    });
    expect(accepted.status).toBe(202);
    const { id, statusUrl } = (await accepted.json()) as { id: string; statusUrl: string };
    await waitFor(
      "the first run to start",
      async () => (await api("GET", "/connection/erin?provider_config_key=cal")).body.metadata?.claimed === true,
      15_000,
      20,
    );
    const scripts = procs.find((p) => p.name === "scripts") as JunctionProcess;
    await scripts.stop("SIGKILL");
    procs.splice(procs.indexOf(scripts), 1, startJunctionProcess("scripts", ["serve", "scripts"], env));
    // NATS hands the job out again once its ack wait (2 s + 2 × 4 s + 30 s) has passed.
    const result = await waitFor(
      "the action's result from the next process",
      async () => {
        const res = await api("GET", statusUrl);
        // Its output or its failure (with the run id); not the answers of a process going or coming.
        return res.status === 200 || res.body.error?.run_id ? res : null;
      },
      70_000,
      200,
    );
    expect(result).toEqual({ status: 200, body: { by: "second" } });
    expect((await api("GET", `/scripts/runs/${id}`)).body.data).toMatchObject({ status: "succeeded", attempt: 2 });
    const hook = await waitFor("the async_action webhook", () =>
      receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === "async_action" && b.payload.id === id),
    );
    expect(hook).toMatchObject({ connectionId: "erin", providerConfigKey: "cal", payload: { statusUrl } });
  }, 120_000);
});
