import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { ReceiveNotificationRequestSchema } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { ManualClock, MetricsRegistry } from "@junction/platform";
import type { OperationRecorderOptions } from "@junction/platform/operations/operation-recorder";
import { recorderFromEnv } from "@junction/platform/operations/recorder-settings";
import { capturingRecorder, MINUTE_START as minute } from "@junction/platform/testing/capturing-recorder";
import { errors } from "../errors.ts";
import { recordReceipt } from "./notification-operation.ts";

function setUp(options: Partial<Omit<OperationRecorderOptions, "clock">> = {}) {
  const { clock, rec, got } = capturingRecorder(options);
  const receive = (answer: object | Error, integration = "cal", env = "env_1") => {
    const req = create(ReceiveNotificationRequestSchema, {
      environmentId: env,
      providerConfigKey: integration,
      body: new TextEncoder().encode('{"id":"evt_1"}'),
    });
    const receipt = answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    return recordReceipt(rec, clock, req, receipt).catch(() => undefined);
  };
  return { clock, rec, got, receive };
}

const recorded = (n: number) => ({ notificationId: `ntf_${n}`, notificationIds: [`ntf_${n}`] });

describe("successful notification receipts as per-minute totals", () => {
  test("1,000 receipts in a minute are one operation with their count, written when the minute ends", async () => {
    const { clock, rec, got, receive } = setUp();
    for (let i = 0; i < 1000; i++) {
      await receive(recorded(i));
      if (i % 100 === 99) await clock.advance(5_000);
    }
    await clock.advance(1_000);
    expect(got).toEqual([]);
    await clock.advance(10_000);
    await rec.flushed();
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      kind: "notification_received",
      status: "success",
      startedAtMs: minute,
      durationMs: 60_000,
      environmentId: "env_1",
      integration: "cal",
      connection: "",
      title: "notification for cal: recorded ×1000",
      messages: [],
      totals: { count: 1000, latencyMinMs: 0, latencyMaxMs: 0, latencySumMs: 0 },
    });
    expect(rec.receiptTotals.size).toBe(0);
  });

  test("one total per (environment, integration, outcome); throttled and dropped ones are none", async () => {
    const { rec, got, receive } = setUp();
    await receive(recorded(1));
    await receive(recorded(2));
    await receive({ duplicate: true, notificationId: "ntf_1" });
    await receive({ handshake: true });
    await receive(recorded(3), "mail");
    await receive(recorded(4), "cal", "env_2");
    await receive({ throttled: true });
    await receive({ dropped: true });
    await rec.flushed();
    expect(got.map((o) => [o.environmentId, o.integration, o.title, o.totals?.count])).toEqual([
      ["env_1", "cal", "notification for cal: recorded ×2", 2],
      ["env_1", "cal", "notification for cal: duplicate ×1", 1],
      ["env_1", "cal", "notification for cal: handshake ×1", 1],
      ["env_1", "mail", "notification for mail: recorded ×1", 1],
      ["env_2", "cal", "notification for cal: recorded ×1", 1],
    ]);
  });

  test("a refused receipt is its own row among 1,000 successes", async () => {
    const { rec, got, receive } = setUp();
    for (let i = 0; i < 500; i++) await receive(recorded(i));
    await receive(errors.unknownWebhookUrl(), "nope");
    for (let i = 500; i < 1000; i++) await receive(recorded(i));
    await rec.flushed();
    expect(got.map((o) => [o.status, o.integration, o.title, o.totals?.count ?? 1])).toEqual([
      ["refused", "nope", "notification for nope: unknown_webhook_url", 1],
      ["success", "cal", "notification for cal: recorded ×1000", 1000],
    ]);
    expect(got[0]?.messages[0]?.text).toStartWith("unknown_webhook_url: ");
  });

  test("stop (flushed) writes the minute so far; the rest of the minute is a period of its own", async () => {
    const { clock, rec, got, receive } = setUp();
    await receive(recorded(1));
    await clock.advance(20_000);
    await rec.flushed();
    expect(got.map((o) => [o.startedAtMs, o.durationMs, o.totals?.count])).toEqual([[minute, 20_000, 1]]);
    await receive(recorded(2));
    await clock.advance(40_000);
    await rec.flushed();
    expect(got.map((o) => [o.startedAtMs, o.durationMs, o.totals?.count])).toEqual([
      [minute, 20_000, 1],
      [minute + 20_000, 40_000, 1],
    ]);
  });

  test("past the bound of totals a minute, receipts fold into their integration's overflow total", async () => {
    const metrics = new MetricsRegistry();
    const { rec, got, receive } = setUp({ maxReceiptTotals: 2, metrics });
    for (const integration of ["a", "b", "c", "c", "d"]) await receive(recorded(1), integration);
    expect(await metrics.render()).toContain("junction_operations_receipt_totals_overflow_total 3");
    await rec.flushed();
    expect(got.map((o) => [o.integration, o.connection, o.title, o.tags])).toEqual([
      ["a", "", "notification for a: recorded ×1", []],
      ["b", "", "notification for b: recorded ×1", []],
      ["c", "", "notification for c: * ×2 (past 2 totals this minute)", ["overflow"]],
      ["d", "", "notification for d: * ×1 (past 2 totals this minute)", ["overflow"]],
    ]);
  });
});

describe("successful receipts one by one", () => {
  test("JUNCTION_LOGS_NOTIFICATION_RECEIPTS (notificationReceipts) brings back a row per receipt, with its ids", async () => {
    const { rec, got, receive } = setUp({ notificationReceipts: true });
    await receive(recorded(1));
    await receive(recorded(2));
    await receive({ duplicate: true, notificationId: "ntf_1" });
    await rec.flushed();
    expect(got.map((o) => [o.status, o.title, o.totals, o.messages.map((m) => m.text)])).toEqual([
      ["success", "notification for cal: recorded ntf_1", undefined, ["recorded ntf_1"]],
      ["success", "notification for cal: recorded ntf_2", undefined, ["recorded ntf_2"]],
      [
        "success",
        "notification for cal: duplicate of ntf_1, not recorded again",
        undefined,
        ["duplicate of ntf_1, not recorded again"],
      ],
    ]);
    expect(rec.receiptTotals.size).toBe(0);
  });

  test("the setting JUNCTION_LOGS_NOTIFICATION_RECEIPTS=true is the recorder's notificationReceipts", () => {
    const clock = new ManualClock(minute);
    expect(recorderFromEnv({}, clock).notificationReceipts).toBe(false);
    expect(recorderFromEnv({ JUNCTION_LOGS_NOTIFICATION_RECEIPTS: "true" }, clock).notificationReceipts).toBe(true);
  });

  test("an integration whose bodies the operator keeps has a row per receipt with its body; the others totals", async () => {
    const { rec, got, receive } = setUp({ bodies: new Set(["cal"]) });
    await receive(recorded(1));
    await receive(recorded(2));
    await receive(recorded(3), "mail");
    await rec.flushed();
    expect(got.map((o) => [o.integration, o.title, o.messages[0]?.fields])).toEqual([
      ["cal", "notification for cal: recorded ntf_1", { body: '{"id":"evt_1"}' }],
      ["cal", "notification for cal: recorded ntf_2", { body: '{"id":"evt_1"}' }],
      ["mail", "notification for mail: recorded ×1", undefined],
    ]);
  });

  test("nothing is kept when recording is off", async () => {
    const { rec, got, receive, clock } = setUp({ enabled: false });
    await receive(recorded(1));
    await rec.flushed();
    expect(got).toEqual([]);
    expect(rec.receiptTotals.size).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
