import { describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { ProxyCaller, UpstreamRequest } from "@junction/upstream-proxy";
import { capturingRecorder } from "@junction/platform/testing/capturing-recorder";
import { proxyCallObserver } from "./proxy-operation.ts";

const request = { method: "GET", path: "/v1/items", providerConfigKey: "cal", connectionId: "c1" } as UpstreamRequest;
const caller = { environmentId: "env_1" } as ProxyCaller;

async function recorded(proxySuccesses: boolean, statuses: number[]): Promise<Operation[]> {
  const clock = new ManualClock(1_700_000_000_000);
  const recorder = new OperationRecorder({ clock, proxySuccesses, flushDelayMs: 0 });
  const observer = proxyCallObserver(recorder);
  const at = clock.now();
  for (const status of statuses) observer.answered(request, caller, status, at, at + 5);
  observer.failed(request, caller, new Error("refused"), at, at + 5);
  const got: Operation[] = [];
  recorder.attach(async (batch) => {
    got.push(...batch);
  });
  await recorder.flushed();
  return got;
}

describe("proxy calls in the operations log", () => {
  test("by default failures are a row each (answers of 400 and above, errors), successes a total per status", async () => {
    const ops = await recorded(false, [200, 204, 302, 404, 200, 503]);
    expect(ops.map((o) => [o.title, o.status, o.totals?.count])).toEqual([
      ["GET /v1/items → 404", "failed", undefined],
      ["GET /v1/items → 503", "failed", undefined],
      [expect.stringMatching(/^GET \/v1\/items → /), "failed", undefined],
      ["GET ×2 → 200", "success", 2],
      ["GET ×1 → 204", "success", 1],
      ["GET ×1 → 302", "success", 1],
    ]);
  });

  test("1,000 successful calls in a minute with a failure among them: one total of 1,000 and the failure's own row", async () => {
    const { clock, rec: recorder, got } = capturingRecorder();
    const observer = proxyCallObserver(recorder);
    for (let i = 0; i < 1000; i++) {
      const startedAtMs = clock.now();
      await clock.advance(i % 4);
      observer.answered(request, caller, 200, startedAtMs, clock.now());
      if (i === 500) observer.answered(request, caller, 500, clock.now(), clock.now());
    }
    await recorder.flushed();
    expect(got.map((o) => [o.title, o.status, o.totals])).toEqual([
      ["GET /v1/items → 500", "failed", undefined],
      ["GET ×1000 → 200", "success", { count: 1000, latencyMinMs: 0, latencyMaxMs: 3, latencySumMs: 1500 }],
    ]);
    expect(got[1]).toMatchObject({ environmentId: "env_1", integration: "cal", connection: "c1", messages: [] });
  });

  test("with JUNCTION_LOGS_PROXY_SUCCESSES every call is recorded", async () => {
    const ops = await recorded(true, [200, 404]);
    expect(ops.map((o) => [o.title, o.status])).toEqual([
      ["GET /v1/items → 200", "success"],
      ["GET /v1/items → 404", "failed"],
      [expect.stringMatching(/^GET \/v1\/items → /), "failed"],
    ]);
  });
});
