import { describe, expect, test } from "bun:test";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type SyncRunOutcome, syncWebhookBodies } from "./sync-webhook.ts";

const run = {
  id: "run_1",
  environmentId: "env_1",
  providerConfigKey: "github",
  scriptName: "issues",
  connectionId: "alice",
  startedAt: Date.parse("2026-11-28T10:00:00.000Z"),
} as ScriptRunRecord;
const zero = { added: 0, updated: 0, deleted: 0, unchanged: 0 };
const outcome = (over: Partial<SyncRunOutcome>): SyncRunOutcome => ({
  run,
  variant: "base",
  syncType: "INCREMENTAL",
  changes: new Map([
    ["Issue", { added: 2, updated: 1, deleted: 0, unchanged: 7 }],
    ["Label", zero],
  ]),
  checkpoints: null,
  success: true,
  error: null,
  endedAt: Date.parse("2026-11-28T10:00:05.000Z"),
  ...over,
});

describe("the sync webhook's bodies", () => {
  test("one per changed model after a successful run; every model with the operator's switch", () => {
    const bodies = syncWebhookBodies(outcome({}), false);
    expect(bodies).toEqual([
      {
        from: "junction",
        type: "sync",
        connectionId: "alice",
        providerConfigKey: "github",
        syncName: "issues",
        syncVariant: "base",
        model: "Issue",
        syncType: "INCREMENTAL",
        success: true,
        responseResults: { added: 2, updated: 1, deleted: 0 },
        modifiedAfter: "2026-11-28T10:00:00.000Z",
        queryTimeStamp: "2026-11-28T10:00:00.000Z",
      },
    ]);
    expect(syncWebhookBodies(outcome({}), true).map((b) => b.model)).toEqual(["Issue", "Label"]);
  });

  test("a failed run sends one per model with the error, startedAt and failedAt, and its checkpoints", () => {
    const failed = outcome({
      success: false,
      error: { name: "ScriptApiError", message: "GET /issues failed with status 500" },
      checkpoints: { from: { page: 1 }, to: { page: 2 } },
    });
    const bodies = syncWebhookBodies(failed, false);
    expect(bodies.map((b) => b.model)).toEqual(["Issue", "Label"]);
    expect(bodies[1]).toEqual({
      from: "junction",
      type: "sync",
      connectionId: "alice",
      providerConfigKey: "github",
      syncName: "issues",
      syncVariant: "base",
      model: "Label",
      syncType: "INCREMENTAL",
      checkpoints: { from: { page: 1 }, to: { page: 2 } },
      success: false,
      error: { type: "ScriptApiError", description: "GET /issues failed with status 500" },
      startedAt: "2026-11-28T10:00:00.000Z",
      failedAt: "2026-11-28T10:00:05.000Z",
    });
  });
});
