import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";
import { type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

const TOKEN = "scrape-token-0123456789";
let h: ProxyHarness;
const rx = startCustomerReceiver();
beforeAll(async () => {
  // A token within the refresh margin: the first call refreshes it.
  h = await startProxyHarness({ env: { JUNCTION_METRICS_TOKEN: TOKEN }, tokenTtlSeconds: 60 });
});
afterAll(async () => {
  await h.close();
  await rx.stop();
});

const scrape = async () =>
  (await fetch(`${h.junction.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();

/** The value of one series in the exposition text, or undefined. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("what the embedded process counts", () => {
  test("proxy calls by integration and upstream status, upstream latency, and the token refresh", async () => {
    for (let i = 0; i < 3; i++) expect((await h.proxy("GET", "/echo/metrics")).status).toBe(200);
    const text = await scrape();
    expect(seriesValue(text, 'junction_proxy_calls_total{integration="cal",status="200"}')).toBe(3);
    expect(seriesValue(text, 'junction_proxy_upstream_seconds_count{integration="cal"}')).toBe(3);
    expect(seriesValue(text, 'junction_proxy_upstream_seconds_bucket{integration="cal",le="+Inf"}')).toBe(3);
    expect(seriesValue(text, 'junction_token_refreshes_total{integration="cal",outcome="ok"}')).toBe(1);
    expect(seriesValue(text, 'junction_http_requests_total{method="GET",route="/proxy/*",status="200"}')).toBe(3);
    expect(text).not.toContain(h.accessToken);
  });

  test("notifications received, duplicate, matched, unmatched and forwarded; delivery rounds and attempts; the queue gauges", async () => {
    const uri = eventsUri("lee@example.com");
    await setupCalendar(h.junction, [rx.url], "cal2");
    await addConnection(h.junction, "lee", { key: "cal2", metadata: { calendarWatchResourceUris: [uri] } });
    await notify(h.junction, googHeaders(uri, { channelId: "m-1" }), { key: "cal2" });
    await notify(h.junction, googHeaders(uri, { channelId: "m-1" }), { key: "cal2" });
    await notify(h.junction, googHeaders(eventsUri("nobody@example.com"), { channelId: "m-2" }), { key: "cal2" });
    await rx.waitFor(2);
    const text = await waitFor("two rounds counted", async () => {
      const t = await scrape();
      return seriesValue(t, 'junction_delivery_rounds_total{outcome="succeeded"}') === 2 ? t : null;
    });
    const notifications = (outcome: string) =>
      seriesValue(text, `junction_notifications_total{integration="cal2",outcome="${outcome}"}`);
    expect(notifications("received")).toBe(2);
    expect(notifications("duplicate")).toBe(1);
    expect(notifications("matched")).toBe(1);
    expect(notifications("unmatched")).toBe(1);
    // Both forwarded: the matched one to its connection, the unmatched one without a connection id.
    expect(notifications("forwarded")).toBe(2);
    expect(seriesValue(text, 'junction_delivery_attempts_total{outcome="ok"}')).toBe(2);
    expect(seriesValue(text, "junction_delivery_pending")).toBe(0);
    expect(seriesValue(text, "junction_delivery_oldest_due_age_seconds")).toBe(0);
    expect(seriesValue(text, "junction_channels_active")).toBe(0);
  });
});
