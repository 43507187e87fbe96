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
  test("a sink that takes text gets each batch as one JSON array of the operations an object sink would get", async () => {
    const clock = new ManualClock(at + 40);
    const metrics = new MetricsRegistry();
    const rec = new OperationRecorder({ clock, maxBatch: 2, metrics });
    const message = { atMs: at, level: "info" as const, text: "ok", fields: { access_token: "s3cret", status: 200 } };
    // Recorded before any sink (objects), then the text sink: what waits is encoded when it is attached.
    rec.record({ kind: "token_refresh", status: "success", startedAtMs: at, title: "first", messages: [message] });
    const batches: { json: string; count: number }[] = [];
    rec.attach({
      encoded: async (json, count) => {
        batches.push({ json, count });
      },
    });
    rec.record({ kind: "proxy_call", status: "failed", startedAtMs: at, title: "second", tags: ["vip"] });
    rec.record({ kind: "proxy_call", status: "success", startedAtMs: at, title: "third" });
    // A field JSON cannot carry loses that operation alone, counted as a sink failure; record never throws.
    rec.record({
      kind: "proxy_call",
      status: "success",
      startedAtMs: at,
      messages: [{ ...message, fields: { n: 1n } }],
    });
    await rec.flushed();
    expect(batches.map((b) => b.count)).toEqual([2, 1]);
    const ops = batches.flatMap((b) => JSON.parse(b.json) as Operation[]);
    expect(ops.map((o) => o.title)).toEqual(["first", "second", "third"]);
    expect(ops[0]?.messages[0]?.fields).toEqual({ access_token: "[redacted]", status: 200 });
    expect(ops[1]).toMatchObject({ kind: "proxy_call", status: "failed", tags: ["vip"], durationMs: 40, endUser: "" });
    expect(batches.map((b) => b.json).join()).not.toContain("s3cret");
    expect(await metrics.render()).toContain("junction_operations_sink_failures_total 1");

    // Back to an object sink: what waits as text is handed over as objects again.
    rec.record({ kind: "proxy_call", status: "success", startedAtMs: at, title: "fourth" });
    const objects: Operation[] = [];
    rec.attach(async (b) => {
      objects.push(...b);
    });
    await rec.flushed();
    expect(objects.map((o) => o.title)).toEqual(["fourth"]);
    expect(objects[0]?.id).toStartWith("op_");
  });
});
