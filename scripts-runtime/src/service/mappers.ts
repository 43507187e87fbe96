import { create, fromJson, type JsonObject, type JsonValue as PbJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  LifecycleEvent,
  LogLevel,
  RunStatus,
  RunTrigger,
  type Script,
  ScriptKind,
  type ScriptRun,
  ScriptRunSchema,
  ScriptSchema,
  type ScriptVersion,
  ScriptVersionSchema,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { LifecycleEvent as EventName, ScriptDeclaration } from "../declaration/script-declaration.ts";
import type { LogLevel as LevelName } from "../runtime/run-types.ts";
import type {
  RunTrigger as TriggerName,
  ScriptRunRecord,
  ScriptVersionRecord,
  ScriptVersionSummary,
  StoredRunStatus,
} from "../store/records.ts";
import { toRunCaller } from "./run-caller.ts";
import type { ScriptOptions } from "./store/records.ts";

export const EVENTS: Record<EventName, LifecycleEvent> = {
  "post-connection-creation": LifecycleEvent.POST_CONNECTION_CREATION,
  "pre-connection-deletion": LifecycleEvent.PRE_CONNECTION_DELETION,
};
export const STATUSES: Record<StoredRunStatus, RunStatus> = {
  running: RunStatus.RUNNING,
  succeeded: RunStatus.SUCCEEDED,
  failed: RunStatus.FAILED,
  timed_out: RunStatus.TIMED_OUT,
  memory_exceeded: RunStatus.MEMORY_EXCEEDED,
  crashed: RunStatus.CRASHED,
  interrupted: RunStatus.INTERRUPTED,
};
export const TRIGGERS: Record<TriggerName, RunTrigger> = {
  event: RunTrigger.EVENT,
  schedule: RunTrigger.SCHEDULE,
  manual: RunTrigger.MANUAL,
  webhook: RunTrigger.WEBHOOK,
  action: RunTrigger.ACTION,
};
const LEVELS: Record<LevelName, LogLevel> = {
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
};

/** The name of an enum value in one of the tables above, undefined when it is not there. */
export function nameOf<K extends string, V>(table: Record<K, V>, value: V): K | undefined {
  return (Object.keys(table) as K[]).find((k) => table[k] === value);
}

function declaration(d: ScriptDeclaration) {
  if (d.kind === "action") {
    return {
      kind: ScriptKind.ACTION,
      ...(d.inputSchema ? { inputSchema: d.inputSchema as JsonObject } : {}),
      ...(d.outputSchema ? { outputSchema: d.outputSchema as JsonObject } : {}),
      endpoints: d.endpoints,
      description: d.description ?? "",
      version: d.version ?? "",
      scopes: d.scopes ?? [],
    };
  }
  if (d.kind === "on-event") {
    return {
      kind: ScriptKind.ON_EVENT,
      event: EVENTS[d.event],
      description: d.description ?? "",
      version: d.version ?? "",
    };
  }
  return {
    kind: ScriptKind.SYNC,
    frequency: d.frequency,
    frequencyMs: BigInt(d.frequencyMs),
    autoStart: d.autoStart,
    webhookSubscriptions: d.webhookSubscriptions,
    hasOnWebhook: d.hasOnWebhook,
    endpoints: d.endpoints,
    description: d.description ?? "",
    version: d.version ?? "",
    models: (d.models ?? {}) as JsonObject,
    syncType: d.syncType ?? "full",
    trackDeletes: d.trackDeletes ?? false,
    scopes: d.scopes ?? [],
  };
}

export function toScriptVersion(v: ScriptVersionRecord | ScriptVersionSummary): ScriptVersion {
  return create(ScriptVersionSchema, {
    id: v.id,
    providerConfigKey: v.providerConfigKey,
    name: v.name,
    version: v.version,
    filename: "compiled" in v ? v.compiled.filename : v.filename,
    declaration: declaration(v.declaration),
    sourceHash: "compiled" in v ? v.compiled.sourceHash : v.sourceHash,
    createdAtMs: BigInt(v.createdAt),
  });
}

export function toScript(v: ScriptVersionRecord, options: ScriptOptions | null): Script {
  return create(ScriptSchema, {
    latest: toScriptVersion(v),
    forwardWebhooksToo: options?.forwardWebhooksToo ?? false,
  });
}

/** A run as the API shows it; logs only when asked (GetRun), lists stay light. */
/** A run as the contract's message: its logs, output and input only `withLogs` (input only `withInput`). */
export function toScriptRun(r: ScriptRunRecord, withLogs: boolean, withInput = withLogs): ScriptRun {
  return create(ScriptRunSchema, {
    id: r.id,
    providerConfigKey: r.providerConfigKey,
    scriptName: r.scriptName,
    scriptVersion: r.scriptVersion,
    connectionId: r.connectionId ?? "",
    trigger: TRIGGERS[r.trigger],
    entry: r.entry,
    attempt: r.attempt,
    status: STATUSES[r.status],
    startedAtMs: BigInt(r.startedAt),
    finishedAtMs: BigInt(r.finishedAt ?? 0),
    durationMs: r.durationMs ?? 0,
    logs: withLogs ? r.logs.map((l) => ({ level: LEVELS[l.level], message: l.message, atMs: BigInt(l.at) })) : [],
    logsTruncated: r.logsTruncated,
    error: r.error
      ? {
          name: r.error.name,
          message: r.error.message,
          stack: r.error.stack ?? "",
          status: r.error.status ?? 0,
          ...(r.error.body === undefined ? {} : { body: fromJson(ValueSchema, r.error.body as PbJson) }),
        }
      : undefined,
    ...(withLogs && r.output !== undefined ? { output: fromJson(ValueSchema, r.output as PbJson) } : {}),
    ...(withInput && r.input !== undefined ? { input: fromJson(ValueSchema, r.input as PbJson) } : {}),
    ...(r.caller ? { caller: toRunCaller(r.caller) } : {}),
  });
}
