import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  bodies,
  type CustomerReceiver,
  environmentId,
  eventsUri,
  googHeaders,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";

// The webhook URL under a flood. Senders post notifications for made-up channel ids
// to an embedded Junction on 127.0.0.1 for a bounded time while the customer's endpoint is down; a
// genuine notification is sent in the middle. The larger run (32 senders, 30 s) is `bun run bench:flood`.

const FLOOD_MS = 2000;
const SENDERS = 16;
const RATE = 300;
const MAX_PENDING = 400;
/**
 * Stated bounds: growth of this process's resident memory (Junction, senders, receiver) and of the data dir.
 * Alone the flood grows it ~37 MiB; inside the whole suite (one process, a collector behind) it reached
 * 116 MiB once. Before the limits a flood grew Junction by ~600 MiB.
 */
const RSS_GROWTH_BOUND = 192 * 1024 * 1024;
const DATA_DIR_GROWTH_BOUND = 16 * 1024 * 1024;

let j: TestJunction;
let receiver: CustomerReceiver;
beforeAll(async () => {
  receiver = startCustomerReceiver();
  j = await startTestJunction({
    logLevel: "warn",
    env: {
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: String(RATE),
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: String(RATE),
      JUNCTION_WEBHOOK_INTAKE_MAX_PENDING: String(MAX_PENDING),
      JUNCTION_WEBHOOK_INTAKE_PENDING_RECOUNT: "200ms",
      JUNCTION_WEBHOOK_INTAKE_FULL_RETRY_AFTER: "1s",
      // The endpoint is down during the flood; once up, every message is retried within a second.
      JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s",
      JUNCTION_WEBHOOK_RETRY_JITTER: "0",
    },
  });
  await setupCalendar(j, [receiver.url]);
  await addConnection(j, "genuine", { metadata: { calendarWatchResourceUris: [eventsUri("genuine@example.com")] } });
});
afterAll(async () => {
  await j?.close();
  await receiver?.stop();
});

/** Bytes of the files under `dir`. */
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

describe("the webhook URL under a flood of made-up channel ids", () => {
  test("memory and disk stay bounded, the genuine notification is delivered, the backlog drains", async () => {
    const url = `${j.url}/webhook/${await environmentId(j)}/cal`;
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const dirBefore = dirBytes(j.dataDir);
    let peakRss = rssBefore;
    const statuses = new Map<number, number>();
    const codes = new Map<string, number>();
    let missingRetryAfter = 0;
    let sent = 0;
    let halfway: () => void = () => {};
    const reachedHalf = new Promise<void>((resolve) => {
      halfway = resolve;
    });
    receiver.answer({ status: 503 });

    const end = Date.now() + FLOOD_MS;
    const sender = async (s: number) => {
      for (let i = 0; Date.now() < end; i++) {
        const headers = googHeaders(eventsUri(`nobody-${s}-${i}@example.com`), { channelId: `made-up-${s}-${i}` });
        const res = await fetch(url, { method: "POST", headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503) {
          if (!res.headers.get("retry-after")) missingRetryAfter++;
          const code = ((await res.json()) as { error: { code: string } }).error.code;
          codes.set(code, (codes.get(code) ?? 0) + 1);
        } else await res.arrayBuffer();
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        if (++sent === 1000) halfway();
      }
      halfway();
    };
    // The genuine notification, sent once the flood is well under way; refused, the upstream sends it again.
    const genuine = async () => {
      await reachedHalf;
      const headers = googHeaders(eventsUri("genuine@example.com"), { channelId: "genuine-channel" });
      const first = await fetch(url, { method: "POST", headers });
      await first.arrayBuffer();
      return { headers, firstStatus: first.status, retryAfter: first.headers.get("retry-after") };
    };
    const [, sentGenuine] = await Promise.all([
      Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s))),
      genuine(),
    ]);
    const accepted = statuses.get(200) ?? 0;

    // Only 200 (recorded) and 503 (with Retry-After) were answered; the limits refused most of the flood.
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(missingRetryAfter).toBe(0);
    expect([...codes.keys()].every((c) => ["webhook_rate_limited", "webhook_backlog_full"].includes(c))).toBe(true);
    expect(codes.get("webhook_backlog_full") ?? 0).toBeGreaterThan(0);
    // At most the cap, plus the requests in flight when it was reached.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(MAX_PENDING + 2 * SENDERS);
    expect(peakRss - rssBefore).toBeLessThan(RSS_GROWTH_BOUND);
    expect(dirBytes(j.dataDir) - dirBefore).toBeLessThan(DATA_DIR_GROWTH_BOUND);

    // The endpoint comes back; the upstream's retry of a refused genuine notification is simulated.
    receiver.answer({ status: 200 });
    if (sentGenuine.firstStatus !== 200) {
      expect(sentGenuine.firstStatus).toBe(503);
      expect(Number(sentGenuine.retryAfter)).toBeGreaterThanOrEqual(1);
      await waitFor(
        "the genuine notification accepted on a resend",
        async () => (await fetch(url, { method: "POST", headers: sentGenuine.headers })).status === 200,
        20_000,
        250,
      );
    }
    // The backlog drains: every accepted notification and the genuine one reach the endpoint.
    await waitFor("the backlog delivered", () => receiver.succeeded().length >= accepted + 1, 30_000);
    const delivered = bodies(receiver.succeeded());
    expect(delivered.filter((b) => b.connectionId === "genuine")).toHaveLength(1);
    const pending = await j.api("GET", "/webhook-messages?status=pending&limit=10");
    expect(pending.body.data).toEqual([]);
  }, 60_000);
});
