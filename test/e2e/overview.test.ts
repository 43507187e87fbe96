import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { overviewRoutes } from "@junction/gateway/routes/overview";
import { NO_OVERVIEW } from "@junction/gateway/overview/overview-store";
import { z } from "zod";
import { waitFor } from "../support/wait-for.ts";
import { CALENDAR, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness({ env: { JUNCTION_OVERVIEW_SAMPLE_MS: "1000" } });
});
afterAll(async () => {
  await h.close();
});

const doc = overviewRoutes({ store: NO_OVERVIEW, now: Date.now })[0]?.doc;
const answerSchema = doc?.responses[200] as z.ZodType;

/** GET /overview, its answer checked against the documented schema (no field the schema does not name). */
async function overview(period = "hour") {
  const res = await h.junction.api("GET", `/overview?period=${period}`);
  expect(res.status).toBe(200);
  const parsed = answerSchema.safeParse(res.body);
  if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
  expect(parsed.data).toEqual(res.body);
  return res.body.data;
}

describe("GET /overview", () => {
  test("empty before anything happened: zero series, nothing in trouble", async () => {
    const o = await overview();
    expect(o.period).toBe("hour");
    expect(o.times).toHaveLength(60);
    expect(o.step_seconds).toBe(60);
    expect(o.proxy_calls["2xx"]).toHaveLength(60);
    expect(o.totals.proxy_calls).toEqual({ "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, error: 0 });
    expect(o.totals.proxy_latency_ms).toEqual({ p50: null, p95: null });
    expect(o.trouble).toEqual({ connections: [], integrations: [], unavailable: [] });
  });

  test("proxy calls by status class and latency, and a refresh failure with its connection in trouble", async () => {
    for (let i = 0; i < 3; i++) expect((await h.proxy("GET", "/echo/ok")).status).toBe(200);
    const missing = await h.proxy("GET", "/no/such/resource");
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.status).toBeLessThan(500);
    // A connection whose token expired and whose refresh token the upstream refuses.
    const broken = await h.junction.api("POST", "/connections", {
      provider_config_key: CALENDAR,
      connection_id: "broken",
      credentials: { type: "OAUTH2", access_token: "old", refresh_token: "refused", expires_at: Date.now() - 60_000 },
    });
    expect(broken.status).toBeLessThan(300);
    expect((await h.proxy("GET", "/echo/ok", { headers: { "connection-id": "broken" } })).status).toBeGreaterThan(399);

    const o = await waitFor("the calls in the overview", async () => {
      const now = await overview();
      return now.totals.proxy_calls["2xx"] >= 3 && now.totals.refresh_failures >= 1 ? now : undefined;
    });
    expect(o.totals.proxy_calls["2xx"]).toBe(3);
    expect(o.totals.proxy_calls["4xx"]).toBe(1);
    expect(o.totals.refresh_failures).toBe(1);
    expect(o.totals.proxy_latency_ms.p50).toBeGreaterThan(0);
    expect(o.totals.proxy_latency_ms.p95).toBeGreaterThanOrEqual(o.totals.proxy_latency_ms.p50);
    // The calls are in the last point of the hour (the current minute), or the one before it.
    const last2 = o.proxy_calls["2xx"].slice(-2).reduce((s: number, n: number) => s + n, 0);
    expect(last2).toBe(3);
    expect(o.trouble.connections).toEqual([
      expect.objectContaining({ provider_config_key: CALENDAR, connection_id: "broken", refresh_failures: 1 }),
    ]);
    expect(o.trouble.connections[0].last_error).not.toContain("refused");
    expect(o.trouble.integrations).toEqual([
      expect.objectContaining({ provider_config_key: CALENDAR, connections: 1, refresh_failures: 1 }),
    ]);
    // The same counts over the day and the week (their points are wider).
    for (const period of ["day", "week"]) {
      const wide = await overview(period);
      expect(wide.totals.proxy_calls["2xx"]).toBe(3);
      expect(wide.times.length).toBe(period === "day" ? 96 : 56);
    }
  });

  test("bad input: an unknown period or parameter is a 400 naming it", async () => {
    for (const q of ["period=month", "period=", "period=hour&extra=1"]) {
      const res = await h.junction.api("GET", `/overview?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_query_params");
      expect(res.body.error.errors.length).toBeGreaterThan(0);
    }
  });
});
