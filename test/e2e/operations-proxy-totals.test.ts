import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { startTestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CALENDAR, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

// Successful proxy calls kept as per-minute totals (the default): the log answers one operation per
// (integration, connection, method, status) and minute with its count, latency and period; failures
// stay one operation each.

const minute = Date.UTC(2026, 10, 21, 12, 0, 0);
const clock = new ManualClock(minute + 1_000);
let h: ProxyHarness;

const api = (path: string) => h.junction.api("GET", path);

beforeAll(async () => {
  h = await startProxyHarness({ clock });
  for (let i = 0; i < 20; i++) expect((await h.proxy("GET", `/echo/n${i}`)).status).toBe(200);
  expect((await h.proxy("GET", "/status/503", { headers: { "provider-config-key": MAIL, retries: "0" } })).status).toBe(
    503,
  );
  await waitFor(
    "the failure in the log",
    async () => (await api("/logs/operations?kind=proxy_call")).body?.data?.length === 1,
  );
  await clock.advance(60_000);
  await waitFor(
    "the minute's total in the log",
    async () => (await api("/logs/operations?kind=proxy_call")).body?.data?.length === 2,
  );
}, 60_000);
let stopped = false;
afterAll(async () => {
  if (!stopped) await h?.close();
});

describe("successful proxy calls as per-minute totals in GET /logs/operations", () => {
  test("one total with its count, latency and minute; the failure is its own operation", async () => {
    const res = await api("/logs/operations?kind=proxy_call");
    const [failed, total] = res.body.data;
    expect(total).toMatchObject({
      kind: "proxy_call",
      status: "success",
      integration: CALENDAR,
      connection: CONNECTION,
      title: "GET ×20 → 200",
      count: 20,
      latency_ms: { min: 0, max: 0, mean: 0 },
      period: { start: new Date(minute).toISOString(), end: new Date(minute + 60_000).toISOString() },
      started_at: new Date(minute).toISOString(),
      duration_ms: 60_000,
      message_count: 0,
    });
    expect(failed).toMatchObject({
      status: "failed",
      integration: MAIL,
      title: "GET /status/503 → 503",
      count: 1,
      latency_ms: null,
      period: null,
    });
    const one = await api(`/logs/operations/${total.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ count: 20, latency_ms: { min: 0, max: 0, mean: 0 }, messages: [] });
  });

  test("the filters find the total: kind, status, integration, connection, text", async () => {
    const ids = async (q: string) =>
      ((await api(`/logs/operations?${q}`)).body.data as { title: string }[]).map((o) => o.title);
    expect(await ids("kind=proxy_call&status=success")).toEqual(["GET ×20 → 200"]);
    expect(await ids(`integration=${CALENDAR}&connection=${CONNECTION}`)).toEqual(["GET ×20 → 200"]);
    expect(await ids("connection=nobody")).toEqual([]);
    expect(await ids("status=failed")).toEqual(["GET /status/503 → 503"]);
    expect(await ids("q=200")).toEqual(["GET ×20 → 200"]);
  });

  test("stopping writes the minute so far: after a restart on the same data dir, its total is in the log", async () => {
    for (let i = 0; i < 3; i++) expect((await h.proxy("POST", `/echo/p${i}`)).status).toBe(200);
    stopped = true;
    await h.junction.close({ keepData: true });
    await h.fake.stop();
    const again = await startTestJunction({ dataDir: h.junction.dataDir, clock });
    try {
      const res = await again.api("GET", "/logs/operations?kind=proxy_call&status=success");
      expect(res.body.data.map((o: { title: string; count: number }) => [o.title, o.count])).toEqual([
        ["POST ×3 → 200", 3],
        ["GET ×20 → 200", 20],
      ]);
      expect(res.body.data[0].period.start).toBe(new Date(minute + 60_000).toISOString());
    } finally {
      await again.close();
    }
  });
});
