import type { OperationKind, OperationMessage } from "@junction/platform/operations/operation";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { ScriptKind } from "../declaration/script-declaration.ts";
import type { RunResult } from "../runtime/run-types.ts";
import type { ScriptRunRecord } from "../store/records.ts";
import { describeCaller } from "./run-caller.ts";

const KINDS: Record<ScriptKind, OperationKind> = {
  sync: "sync_run",
  action: "action_run",
  "on-event": "lifecycle_hook",
};

/** Records one script run in the operations log: how it ended, its logs as its messages, its error. */
export function recordRun(
  recorder: OperationRecorder | undefined,
  kind: ScriptKind,
  record: ScriptRunRecord,
  result: RunResult,
): void {
  if (!recorder?.enabled) return;
  const messages: OperationMessage[] = result.logs.map((l) => ({ atMs: l.at, level: l.level, text: l.message }));
  if (record.caller) {
    const text = `called by ${describeCaller(record.caller)}`;
    messages.unshift({ atMs: result.startedAt, level: "info", text, fields: { caller: record.caller.kind } });
  }
  if (result.logsTruncated) messages.push({ atMs: result.finishedAt, level: "warn", text: "logs truncated" });
  if (result.error) {
    messages.push({ atMs: result.finishedAt, level: "error", text: `${result.error.name}: ${result.error.message}` });
  }
  recorder.record({
    kind: KINDS[kind],
    status: result.status === "succeeded" ? "success" : "failed",
    startedAtMs: result.startedAt,
    durationMs: result.durationMs,
    environmentId: record.environmentId,
    integration: record.providerConfigKey,
    connection: record.connectionId ?? "",
    tags: [`script:${record.scriptName}`, `run:${record.id}`],
    title: `${record.scriptName} (${record.entry}): ${result.status}`,
    messages,
  });
}
