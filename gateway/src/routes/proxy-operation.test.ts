import { describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { UpstreamRequest } from "@junction/upstream-proxy";
import { proxyCallRecorder } from "./proxy-operation.ts";

const request = { method: "GET", path: "/v1/items", providerConfigKey: "cal", connectionId: "c1" } as UpstreamRequest;
const caller = { environmentId: "env_1" };

async function recorded(proxySuccesses: boolean, statuses: number[]): Promise<Operation[]> {
  const clock = new ManualClock(1_700_000_000_000);
  const recorder = new OperationRecorder({ clock, proxySuccesses, flushDelayMs: 0 });
  const wrap = proxyCallRecorder(recorder, clock);
  for (const status of statuses) await wrap(Promise.resolve(new Response(null, { status })), request, caller);
  await wrap(Promise.reject(new Error("refused")), request, caller).catch(() => {});
  const got: Operation[] = [];
  recorder.attach(async (batch) => {
    got.push(...batch);
  });
  await recorder.flushed();
  return got;
}

describe("proxy calls in the operations log", () => {
  test("by default only failures are recorded: answers of 400 and above, and errors", async () => {
    const ops = await recorded(false, [200, 204, 302, 404, 503]);
    expect(ops.map((o) => o.title)).toEqual([
      "GET /v1/items → 404",
      "GET /v1/items → 503",
      expect.stringMatching(/^GET \/v1\/items → /),
    ]);
    expect(ops.every((o) => o.status === "failed")).toBe(true);
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
