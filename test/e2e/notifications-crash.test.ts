import { afterEach, describe, expect, test } from "bun:test";
import { startTestJunction } from "../support/embedded-junction.ts";
import { freePort } from "@junction/platform/testing/free-port";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  type CustomerReceiver,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";

const KEY = "jct_sk_crash_test_0123456789abcdefghij";
const URI = eventsUri("nia@example.com");

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `bun cli/junction.ts start` on a data dir and port, as an operator runs it. */
class Junction {
  proc: JunctionProcess | undefined;
  constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.proc = startJunctionProcess("junction", ["start"], {
      JUNCTION_DATA_DIR: this.dataDir,
      PORT: String(this.port),
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_SECRET_KEY: KEY,
      JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true",
      ...this.env,
    });
    const proc = this.proc;
    cleanups.push(() => proc.stop("SIGKILL"));
    try {
      await waitFor("junction to be healthy", async () => (await fetch(`${this.url}/health`)).ok, 20_000, 50);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${proc.output()}`);
    }
  }

  async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    await proc?.stop("SIGKILL");
  }

  async api(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return res.json();
  }

  async notify(channelId: string): Promise<Response> {
    const env = (await this.api("GET", "/integrations/cal?include=webhook")).data.webhook_url.split("/")[4];
    return fetch(`${this.url}/webhook/${env}/cal`, { method: "POST", headers: googHeaders(URI, { channelId }) });
  }
}

async function setup(env: Record<string, string>) {
  const dir = tempDir();
  cleanups.push(async () => dir.remove());
  const rx = startCustomerReceiver();
  cleanups.push(() => rx.stop());
  const junction = new Junction(dir.path, await freePort(), env);
  await junction.start();
  await junction.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
  await junction.api("PUT", "/webhook-settings", { endpoints: [rx.url] });
  return { junction, rx };
}

/** Every delivery carries one webhook-id per notification, and each id reached the receiver with a 2xx. */
function idsByChannel(rx: CustomerReceiver): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const d of rx.received) {
    const channel = (JSON.parse(d.body) as { payload: Record<string, string> }).payload["x-goog-channel-id"] as string;
    const ids = out.get(channel) ?? new Set<string>();
    ids.add(d.headers["webhook-id"] as string);
    out.set(channel, ids);
  }
  return out;
}

describe("crash safety (SIGKILL of `junction start`)", () => {
  test("a notification answered 200 but not yet delivered is delivered after a restart, with the same webhook-id", async () => {
    const { junction, rx } = await setup({ JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s,2s,1m" });
    rx.answer({ status: 503 });
    const res = await junction.notify("crash-1");
    expect(res.status).toBe(200);
    const [failed] = await rx.waitFor(1, 15_000);
    // Killed once the failed attempt is recorded: the retry is due in 2 s, and Junction is gone.
    await waitFor("the failed attempt in the log", async () => {
      const log = await junction.api("GET", "/webhook-messages");
      return log.data[0]?.attempt_count === 1;
    });
    await junction.kill();

    rx.answer({ status: 200 });
    await junction.start();
    await waitFor("the delivery after restart", () => rx.succeeded().length === 1, 20_000);
    expect(rx.succeeded()[0]?.headers["webhook-id"]).toBe(failed?.headers["webhook-id"] as string);
    expect(rx.succeeded()[0]?.body).toBe(failed?.body as string);
    // The receiver answered before Junction recorded it: wait for the record.
    const log = await waitFor("the success in the log", async () => {
      const list = await junction.api("GET", "/webhook-messages");
      return list.data[0]?.status === "succeeded" ? list : null;
    });
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({ id: failed?.headers["webhook-id"], status: "succeeded", attempt_count: 2 });
  }, 60_000);

  test("an attempt cut by the kill (the receiver hung) is made again after a restart, with the same webhook-id", async () => {
    const { junction, rx } = await setup({ JUNCTION_WEBHOOK_DELIVERY_TIMEOUT: "2s" });
    rx.answer("hang");
    expect((await junction.notify("crash-hang")).status).toBe(200);
    const [hung] = await rx.waitFor(1, 15_000);
    await junction.kill();

    rx.answer({ status: 200 });
    await junction.start();
    // The cut attempt's claim (timeout + 5 s) must run out before the message is taken again.
    await waitFor("the delivery after restart", () => rx.succeeded().length === 1, 30_000);
    expect(rx.succeeded()[0]?.headers["webhook-id"]).toBe(hung?.headers["webhook-id"] as string);
  }, 60_000);

  test("notifications recorded just before the kill are all forwarded after a restart, one webhook-id each", async () => {
    const { junction, rx } = await setup({
      JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s,1s,2s,1m",
      // Messages stored claimed just before the kill wait for that claim (timeout + 5 s) to run out.
      JUNCTION_WEBHOOK_DELIVERY_TIMEOUT: "2s",
    });
    const channels = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(channels.map((c) => junction.notify(c)));
    expect(answers.map((r) => r.status)).toEqual(channels.map(() => 200));
    await junction.kill();

    await junction.start();
    await waitFor(
      "every notification delivered",
      () => {
        const succeeded = new Set(rx.succeeded().map((d) => d.headers["webhook-id"]));
        return succeeded.size === channels.length;
      },
      30_000,
    );
    const ids = idsByChannel(rx);
    expect([...ids.keys()].sort()).toEqual([...channels].sort());
    for (const set of ids.values()) expect(set.size).toBe(1);
  }, 60_000);
});

describe("a customer receiver restarted mid-stream", () => {
  test("loses nothing: every notification is delivered once the receiver is back", async () => {
    const j = await startTestJunction({ env: { JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s,200ms,500ms,1s,2s,5s,10s" } });
    cleanups.push(() => j.close());
    const rx = startCustomerReceiver();
    cleanups.push(() => rx.stop());
    await setupCalendar(j, [rx.url]);

    const total = 60;
    const sending = (async () => {
      for (let i = 0; i < total; i++)
        expect((await notify(j, googHeaders(URI, { channelId: `stream-${i}` }))).status).toBe(200);
    })();
    await rx.waitFor(15, 15_000);
    await rx.stop();
    // Back once Junction has seen it down (failed attempts recorded), while notifications keep coming.
    await waitFor(
      "failed attempts while the receiver is down",
      async () => {
        const failed = await j.api("GET", "/webhook-messages?status=failed");
        return failed.body.data.length > 0;
      },
      15_000,
    );
    await rx.restart();
    await sending;

    await waitFor(
      "every notification delivered",
      () => new Set(rx.succeeded().map((d) => d.headers["webhook-id"])).size === total,
      30_000,
    );
    const ids = idsByChannel(rx);
    expect(ids.size).toBe(total);
    for (const set of ids.values()) expect(set.size).toBe(1);
  }, 60_000);
});
