import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import { MetricsRegistry } from "../metrics.ts";
import type { Operation } from "./operation.ts";
import { OperationRecorder } from "./operation-recorder.ts";
import { loadRecorderSettings } from "./recorder-settings.ts";

const at = 1_700_000_000_000;

describe("OperationRecorder", () => {
  test("returns at once and hands the operations to the sink in batches", async () => {
    const clock = new ManualClock(at + 40);
    const rec = new OperationRecorder({ clock, maxBatch: 2 });
    const batches: Operation[][] = [];
    for (let i = 0; i < 5; i++) rec.record({ kind: "proxy_call", status: "success", startedAtMs: at, title: `n${i}` });
    rec.attach(async (b) => {
      batches.push(b);
    });
    await rec.flushed();
    expect(batches.map((b) => b.map((o) => o.title))).toEqual([["n0", "n1"], ["n2", "n3"], ["n4"]]);
    const first = batches[0]?.[0] as Operation;
    expect(first.id).toStartWith("op_");
    expect(first.durationMs).toBe(40);
    expect(first).toMatchObject({ integration: "", connection: "", tags: [], messages: [] });
  });

  test("past its bound drops new operations and counts them, never waiting", async () => {
    const metrics = new MetricsRegistry();
    const rec = new OperationRecorder({ clock: new ManualClock(at), maxBuffered: 3, metrics });
    for (let i = 0; i < 10; i++) rec.record({ kind: "proxy_call", status: "success", startedAtMs: at });
    expect(rec.droppedTotal).toBe(7);
    expect(await metrics.render()).toContain("junction_operations_dropped_total 7");
    const got: Operation[] = [];
    rec.attach(async (b) => {
      got.push(...b);
    });
    await rec.flushed();
    expect(got).toHaveLength(3);
  });

  test("redacts secret-looking fields of messages and survives a failing sink", async () => {
    const metrics = new MetricsRegistry();
    const rec = new OperationRecorder({ clock: new ManualClock(at), metrics });
    let fail = true;
    const got: Operation[] = [];
    rec.attach(async (b) => {
      if (fail) throw new Error("store down");
      got.push(...b);
    });
    const message = { atMs: at, level: "info" as const, text: "ok", fields: { access_token: "s3cret", status: 200 } };
    rec.record({ kind: "token_refresh", status: "success", startedAtMs: at, messages: [message] });
    await rec.flushed();
    fail = false;
    rec.record({ kind: "token_refresh", status: "success", startedAtMs: at, messages: [message] });
    await rec.flushed();
    expect(got[0]?.messages[0]?.fields).toEqual({ access_token: "[redacted]", status: 200 });
    expect(JSON.stringify(got)).not.toContain("s3cret");
    expect(await metrics.render()).toContain("junction_operations_sink_failures_total 1");
  });

  test("switched off records nothing; bodies are kept only for the integrations named", () => {
    const settings = loadRecorderSettings({ JUNCTION_LOGS_RECORD: "false", JUNCTION_LOGS_BODIES: "cal, mail" });
    expect(settings).toMatchObject({ record: false, bodies: ["cal", "mail"] });
    const rec = new OperationRecorder({ clock: new ManualClock(at), enabled: false, bodies: new Set(settings.bodies) });
    rec.record({ kind: "proxy_call", status: "success", startedAtMs: at });
    expect(rec.keepsBodies("cal")).toBe(true);
    expect(rec.keepsBodies("other")).toBe(false);
    expect(loadRecorderSettings({}).record).toBe(true);
  });
});
