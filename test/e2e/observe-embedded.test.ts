import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

const METRICS_TOKEN = "metrics-token-0123456789";
let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction({ env: { JUNCTION_METRICS_TOKEN: METRICS_TOKEN } });
});
afterAll(async () => {
  await j.close();
});

const scrape = (authorization?: string) =>
  fetch(`${j.url}/metrics`, authorization ? { headers: { authorization } } : {});

describe("/metrics and /ready in the embedded process", () => {
  test("/metrics answers the metrics token only, never a secret key", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape(`Bearer ${TEST_SECRET_KEY}`)).status).toBe(401);
    const res = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  });

  test("counts requests by route pattern and status, with latency buckets, and no ids or keys", async () => {
    await j.api("GET", "/connections/conn_does_not_exist?provider_config_key=nope");
    await j.api("GET", "/integrations");
    const text = await (await scrape(`Bearer ${METRICS_TOKEN}`)).text();
    expect(text).toContain("# TYPE junction_http_requests_total counter");
    expect(text).toMatch(/junction_http_requests_total\{method="GET",route="\/integrations",status="200"\} \d+/);
    expect(text).toMatch(
      /junction_http_requests_total\{method="GET",route="\/connections\/:connectionId",status="4\d\d"\} 1/,
    );
    expect(text).toMatch(/junction_http_request_seconds_bucket\{method="GET",route="\/integrations",le="\+Inf"\} \d+/);
    expect(text).not.toContain("conn_does_not_exist");
    expect(text).not.toContain(TEST_SECRET_KEY);
  });

  test("/ready names the store, the bus and every service, and answers 200 when they answer", async () => {
    const res = await fetch(`${j.url}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checked: string[] };
    expect(body.status).toBe("ready");
    expect(body.checked).toEqual([
      "store",
      "bus",
      "service:connection",
      "service:proxy",
      "service:channel",
      "service:webhook",
      "service:scripts",
      "service:logs",
    ]);
  });

  test("/ready answers 503 naming the bus once it is closed; /health stays 200", async () => {
    const other = await startTestJunction();
    try {
      await other.bus.close();
      const res = await fetch(`${other.url}/ready`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; missing: { name: string; reason: string }[] };
      expect(body.status).toBe("not_ready");
      expect(body.missing.map((m) => m.name)).toEqual(["bus"]);
      expect(body.missing[0]?.reason).toContain("bus is closed");
      expect((await fetch(`${other.url}/health`)).status).toBe(200);
    } finally {
      await other.close().catch(() => {});
    }
  });

  test("/metrics is 404 without a configured metrics token", async () => {
    const other = await startTestJunction();
    try {
      const res = await fetch(`${other.url}/metrics`, { headers: { authorization: `Bearer ${TEST_SECRET_KEY}` } });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("metrics_off");
      expect(body.error.message).toContain("JUNCTION_METRICS_TOKEN");
    } finally {
      await other.close();
    }
  });
});
