import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Code } from "@connectrpc/connect";
import { JunctionError, ManualClock } from "@junction/platform";
import { SqliteScriptRunStore } from "../store/sqlite-script-run-store.ts";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import { runAndRecord, type RunSubject, runtimeRefused } from "./run-and-record.ts";
import { ScriptRuntime } from "./script-runtime.ts";

const clock = new ManualClock();
let runtime: ScriptRuntime;
let store: SqliteScriptRunStore;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, clock });
  store = SqliteScriptRunStore.open(":memory:");
});
afterAll(async () => {
  await runtime.close();
  await store.close();
});

const subject: RunSubject = {
  environmentId: "env_1",
  providerConfigKey: "google-calendar",
  scriptName: "watch-renewal",
  scriptVersion: 3,
  connectionId: "conn-1",
  trigger: "schedule",
};
const script = (body: string) => ({ source: syncScript(body), filename: "watch-renewal.ts" });

describe("runAndRecord", () => {
  test("records the run with its script, version, connection, trigger, status, logs and run id", async () => {
    const { record, result } = await runAndRecord(runtime, store, clock, subject, {
      script: script(`nango.log("renewing", { level: "warn" }); return [nango.activityLogId, nango.connectionId];`),
      entry: "exec",
      host: new RecordingHost(),
    });
    expect(result.output).toEqual([record.id, "conn-1"]);
    expect(record.id).toMatch(/^run_/);
    expect(await store.get("env_1", record.id)).toEqual({
      id: record.id,
      environmentId: "env_1",
      providerConfigKey: "google-calendar",
      scriptName: "watch-renewal",
      scriptVersion: 3,
      connectionId: "conn-1",
      trigger: "schedule",
      entry: "exec",
      attempt: 1,
      status: "succeeded",
      startedAt: clock.now(),
      finishedAt: clock.now(),
      durationMs: result.durationMs,
      logs: [{ level: "warn", message: "renewing", at: clock.now() }],
      logsTruncated: false,
      error: null,
    });
  });

  test("a failed run is recorded with its error", async () => {
    const { record } = await runAndRecord(
      runtime,
      store,
      clock,
      { ...subject, trigger: "event", attempt: 2 },
      {
        script: script(`throw new Error("calendar gone");`),
        entry: "exec",
        host: new RecordingHost(),
      },
    );
    const stored = await store.get("env_1", record.id);
    expect(stored).toMatchObject({
      status: "failed",
      attempt: 2,
      trigger: "event",
      error: { name: "Error", message: "calendar gone" },
    });
  });

  test("a run the runtime refuses is recorded as failed, and the error is thrown", async () => {
    const closed = await ScriptRuntime.start({ poolSize: 1, clock });
    await closed.close();
    const before = (await store.list("env_1")).length;
    await expect(
      runAndRecord(closed, store, clock, subject, {
        script: script("return 1;"),
        entry: "exec",
        host: new RecordingHost(),
      }),
    ).rejects.toThrow("the script runtime is closed");
    const runs = await store.list("env_1");
    expect(runs).toHaveLength(before + 1);
    // ids sort by creation to the millisecond, and the manual clock has not moved: find it by its error
    expect(runs.filter((r) => r.error?.name === "RuntimeUnavailable")).toEqual([
      expect.objectContaining({
        status: "failed",
        error: { name: "RuntimeUnavailable", message: "the script runtime is closed" },
      }),
    ]);
  });
});

describe("runtimeRefused", () => {
  test("a run given up in the line is a QueueTimeoutError; any other refusal RuntimeUnavailable", () => {
    const waited = new JunctionError("script_queue_timeout", "the run waited 1000 ms", Code.ResourceExhausted);
    expect(runtimeRefused(waited)).toEqual({ name: "QueueTimeoutError", message: "the run waited 1000 ms" });
    expect(runtimeRefused(new Error("the script runtime is closed"))).toEqual({
      name: "RuntimeUnavailable",
      message: "the script runtime is closed",
    });
  });
});
