import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { newId } from "@junction/platform";
import type { RunFilter, RunFinish, ScriptRunRecord } from "./records.ts";
import type { ScriptRunStore } from "./stores.ts";

/** A fresh, empty store (logs capped at `maxLogBytes`) and how to dispose of it. */
export type RunStoreFactory = (maxLogBytes: number) => Promise<{ store: ScriptRunStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";
const MAX_LOG_BYTES = 64;

/** The behaviour every ScriptRunStore must have; run by each implementation's test file. */
export function scriptRunStoreConformance(name: string, factory: RunStoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: ScriptRunStore;
    let cleanup: () => Promise<void>;
    let now = 1_767_225_600_000;

    beforeEach(async () => {
      ({ store, cleanup } = await factory(MAX_LOG_BYTES));
    });
    afterEach(() => cleanup());

    const running = (over: Partial<ScriptRunRecord> = {}): ScriptRunRecord => {
      now += 1000;
      return {
        id: newId("run", now),
        environmentId: ENV,
        providerConfigKey: "google-calendar",
        scriptName: "watch-renewal",
        scriptVersion: 2,
        connectionId: "conn-1",
        trigger: "schedule",
        entry: "exec",
        attempt: 1,
        status: "running",
        startedAt: now,
        finishedAt: null,
        durationMs: null,
        logs: [],
        logsTruncated: false,
        error: null,
        ...over,
      };
    };
    const failure: RunFinish = {
      status: "failed",
      finishedAt: 0,
      durationMs: 12.5,
      logs: [
        { level: "info", message: "creating channel", at: 1 },
        { level: "error", message: "stop failed", at: 2 },
      ],
      logsTruncated: false,
      error: {
        name: "ScriptApiError",
        message: "POST /channels/stop failed with status 404",
        status: 404,
        body: { "a.b": { $c: 1 } },
      },
    };

    test("a run is recorded as it starts and read back as written", async () => {
      const run = running({ connectionId: null, trigger: "manual", entry: "onWebhook", attempt: 3 });
      await store.insert(run);
      expect(await store.get(ENV, run.id)).toEqual(run);
      expect(await store.get("env_other", run.id)).toBeNull();
      expect(await store.get(ENV, newId("run"))).toBeNull();
    });

    test("finish writes the ending once; a second finish changes nothing", async () => {
      const run = running();
      await store.insert(run);
      const ended = { ...failure, finishedAt: run.startedAt + 13 };
      const finished = await store.finish(ENV, run.id, ended);
      expect(finished).toEqual({ ...run, ...ended });
      expect(await store.finish(ENV, run.id, { ...ended, status: "succeeded", error: null })).toBeNull();
      expect(await store.get(ENV, run.id)).toEqual({ ...run, ...ended });
      expect(await store.finish(ENV, newId("run"), ended)).toBeNull();
      expect(await store.finish("env_other", run.id, ended)).toBeNull();
    });

    test("finish writes the attempt that ended the run when given, and keeps it otherwise", async () => {
      const retried = running({ trigger: "action" });
      const once = running({ attempt: 2 });
      for (const run of [retried, once]) await store.insert(run);
      expect((await store.finish(ENV, retried.id, { ...failure, finishedAt: now, attempt: 4 }))?.attempt).toBe(4);
      expect((await store.get(ENV, retried.id))?.attempt).toBe(4);
      expect((await store.finish(ENV, once.id, { ...failure, finishedAt: now }))?.attempt).toBe(2);
    });

    test("a run taken by a later attempt is finished by that attempt only", async () => {
      const run = running({ trigger: "action" });
      await store.insert(run);
      expect(await store.claimAttempt(ENV, run.id, 2)).toBe(true);
      expect(await store.claimAttempt(ENV, run.id, 2)).toBe(false);
      expect(await store.claimAttempt("env_other", run.id, 3)).toBe(false);
      expect(await store.finish(ENV, run.id, { ...failure, finishedAt: now, attempt: 1 })).toBeNull();
      expect((await store.get(ENV, run.id))?.status).toBe("running");
      expect((await store.finish(ENV, run.id, { ...failure, finishedAt: now, attempt: 2 }))?.attempt).toBe(2);
      expect(await store.claimAttempt(ENV, run.id, 3)).toBe(false);
    });

    test("an action's output is kept with its ending, whatever its keys; other runs have none", async () => {
      const run = running({ trigger: "action" });
      await store.insert(run);
      const output = { "a.b": [1, { $c: null }], text: "é" };
      const ended = { ...failure, status: "succeeded" as const, error: null, finishedAt: now, output };
      expect(await store.finish(ENV, run.id, ended)).toEqual({ ...run, ...ended });
      expect((await store.get(ENV, run.id))?.output).toEqual(output);
      expect(await store.list(ENV, { trigger: "action" })).toHaveLength(1);
      const other = running();
      await store.insert(other);
      await store.finish(ENV, other.id, { ...failure, finishedAt: now });
      expect(await store.get(ENV, other.id)).not.toHaveProperty("output");
    });

    test("an action run's caller and input are kept from its start through its end; other runs have none", async () => {
      const caller = {
        kind: "mcp_client" as const,
        name: "Claude",
        clientId: "https://claude.ai/cm.json",
        endUserId: "u-1",
      };
      const input = { "a.b": [1, { $c: "é" }], n: null };
      const run = running({ trigger: "action", caller, input });
      await store.insert(run);
      expect(await store.get(ENV, run.id)).toEqual(run);
      const ended = { ...failure, status: "succeeded" as const, error: null, finishedAt: now, output: { ok: true } };
      expect(await store.finish(ENV, run.id, ended)).toEqual({ ...run, ...ended });
      const [listed] = await store.list(ENV, { trigger: "action" });
      expect(listed?.caller).toEqual(caller);
      const byKey = running({ trigger: "action", caller: { kind: "secret_key", name: "ci-bot", keyId: "key_1" } });
      await store.insert(byKey);
      expect(await store.get(ENV, byKey.id)).toEqual(byKey);
      const other = running();
      await store.insert(other);
      const read = await store.get(ENV, other.id);
      expect(read).not.toHaveProperty("caller");
      expect(read).not.toHaveProperty("input");
    });

    test("logs past the cap are cut, with a marker, and the run says they were", async () => {
      const run = running();
      await store.insert(run);
      const logs = [
        { level: "info" as const, message: "a".repeat(40), at: 1 },
        { level: "warn" as const, message: "b".repeat(40), at: 2 },
        { level: "info" as const, message: "never kept", at: 3 },
      ];
      const finished = await store.finish(ENV, run.id, { ...failure, finishedAt: now, logs });
      expect(finished?.logsTruncated).toBe(true);
      expect(finished?.logs.map((l) => [l.level, l.message])).toEqual([
        ["info", "a".repeat(40)],
        ["warn", "b".repeat(24)],
        ["warn", `[logs truncated: more than ${MAX_LOG_BYTES} bytes were logged]`],
      ]);
      const inserted = running({ status: "succeeded", logs: [{ level: "debug", message: "x".repeat(500), at: 1 }] });
      await store.insert(inserted);
      expect((await store.get(ENV, inserted.id))?.logs[0]?.message).toHaveLength(MAX_LOG_BYTES);
    });

    test("list is newest first, filtered, and paged with before", async () => {
      const runs = [
        running({ scriptName: "a", connectionId: "c1", trigger: "event" }),
        running({ scriptName: "b", connectionId: "c1", trigger: "schedule", status: "succeeded" }),
        running({ scriptName: "a", connectionId: "c2", trigger: "webhook", providerConfigKey: "gmail" }),
        running({ scriptName: "a", connectionId: "c1", trigger: "schedule", environmentId: "env_other" }),
      ];
      for (const run of runs) await store.insert(run);
      const ids = async (filter: RunFilter = {}) => (await store.list(ENV, filter)).map((r) => r.id);
      const [r0, r1, r2] = runs.map((r) => r.id) as [string, string, string, string];
      expect(await ids()).toEqual([r2, r1, r0]);
      expect(await ids({ scriptName: "a" })).toEqual([r2, r0]);
      expect(await ids({ connectionId: "c1" })).toEqual([r1, r0]);
      expect(await ids({ trigger: "schedule" })).toEqual([r1]);
      expect(await ids({ status: "running" })).toEqual([r2, r0]);
      expect(await ids({ providerConfigKey: "gmail" })).toEqual([r2]);
      expect(await ids({ limit: 2 })).toEqual([r2, r1]);
      expect(await ids({ limit: 2, before: r1 })).toEqual([r0]);
      expect(await ids({ scriptName: "nope" })).toEqual([]);
    });

    test("retention deletes finished runs that ended before the cut, never running ones", async () => {
      const old = running();
      const recent = running();
      const unfinished = running();
      for (const run of [old, recent, unfinished]) await store.insert(run);
      await store.finish(ENV, old.id, { ...failure, finishedAt: 1_000 });
      await store.finish(ENV, recent.id, { ...failure, finishedAt: 5_000 });
      expect(await store.deleteFinishedBefore(2_000)).toBe(1);
      expect((await store.list(ENV)).map((r) => r.id).sort()).toEqual([recent.id, unfinished.id].sort());
    });

    test("a run id is recorded once", async () => {
      const run = running();
      await store.insert(run);
      await expect(store.insert({ ...run, scriptName: "other" })).rejects.toThrow();
      expect((await store.get(ENV, run.id))?.scriptName).toBe("watch-renewal");
    });
  });
}
