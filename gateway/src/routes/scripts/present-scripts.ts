import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  LifecycleEvent,
  LogLevel,
  type RunCaller,
  RunCallerKind,
  RunStatus,
  RunTrigger,
  type Script,
  type ScriptDeclaration,
  ScriptKind,
  type ScriptRun,
  type ScriptVersion,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { z } from "zod";
import { iso } from "../../http/json.ts";
import { isoOrNull } from "../../openapi/route-doc.ts";

/** Public names of the contract's enums (the REST API speaks these). */
export const RUN_STATUSES = {
  running: RunStatus.RUNNING,
  succeeded: RunStatus.SUCCEEDED,
  failed: RunStatus.FAILED,
  timed_out: RunStatus.TIMED_OUT,
  memory_exceeded: RunStatus.MEMORY_EXCEEDED,
  crashed: RunStatus.CRASHED,
  interrupted: RunStatus.INTERRUPTED,
} as const;
export const RUN_TRIGGERS = {
  event: RunTrigger.EVENT,
  schedule: RunTrigger.SCHEDULE,
  manual: RunTrigger.MANUAL,
  webhook: RunTrigger.WEBHOOK,
  action: RunTrigger.ACTION,
} as const;
const EVENTS = {
  "post-connection-creation": LifecycleEvent.POST_CONNECTION_CREATION,
  "pre-connection-deletion": LifecycleEvent.PRE_CONNECTION_DELETION,
} as const;
const CALLER_KINDS = {
  secret_key: RunCallerKind.SECRET_KEY,
  mcp_client: RunCallerKind.MCP_CLIENT,
  dashboard: RunCallerKind.DASHBOARD,
} as const;
const LEVELS = { debug: LogLevel.DEBUG, info: LogLevel.INFO, warn: LogLevel.WARN, error: LogLevel.ERROR } as const;

export const enumOf = <T extends Record<string, number>>(table: T) =>
  z.enum(Object.keys(table) as [keyof T & string, ...(keyof T & string)[]]).nullable();

/** The answer schemas of the presenters below (the OpenAPI document's; checked against real answers in tests). */
export const versionAnswer = z
  .object({
    id: z.string(),
    provider_config_key: z.string(),
    name: z.string(),
    version: z.number().int(),
    kind: z.enum(["sync", "on-event", "action"]),
    event: enumOf(EVENTS),
    frequency: z.string().nullable(),
    frequency_ms: z.number().nullable(),
    auto_start: z.boolean().nullable(),
    webhook_subscriptions: z.array(z.string()),
    endpoints: z.array(z.object({ method: z.string(), path: z.string() })),
    models: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Syncs only: the JSON Schema of each model its records follow (zero-yaml zod models converted)."),
    sync_type: z.enum(["full", "incremental"]).optional().describe("Syncs only: Nango's syncType."),
    track_deletes: z.boolean().optional().describe("Syncs only: Nango's trackDeletes."),
    scopes: z.array(z.string()).optional().describe("Syncs and actions: the scopes declared."),
    input_schema: z.unknown().optional().describe("Actions only: the JSON Schema of the input, or null."),
    output_schema: z.unknown().optional().describe("Actions only: the JSON Schema of the output, or null."),
    description: z.string().nullable(),
    filename: z.string().nullable(),
    source_hash: z.string(),
    created_at: isoOrNull,
  })
  .meta({ id: "ScriptVersion" });
export const scriptAnswer = versionAnswer.extend({ forward_webhooks_too: z.boolean() }).meta({ id: "Script" });
export const runAnswer = z
  .object({
    id: z.string(),
    provider_config_key: z.string(),
    script_name: z.string(),
    script_version: z.number().int(),
    connection_id: z.string().nullable(),
    trigger: enumOf(RUN_TRIGGERS),
    entry: z.string(),
    attempt: z.number().int(),
    status: enumOf(RUN_STATUSES),
    started_at: isoOrNull,
    finished_at: isoOrNull,
    duration_ms: z.number().nullable(),
    logs_truncated: z.boolean(),
    error: z
      .object({
        name: z.string(),
        message: z.string(),
        stack: z.string().nullable(),
        status: z.number().int().nullable(),
        body: z.unknown(),
      })
      .nullable(),
    caller: z
      .object({
        kind: enumOf(CALLER_KINDS),
        name: z.string().describe("The secret key's name; on an end user's MCP URL, the MCP client's name."),
        key_id: z.string().nullable().describe("The secret key's id (`key_...`), when one authenticated the call."),
        client_id: z.string().nullable().describe("On an end user's MCP URL: the MCP client's OAuth client_id."),
        end_user_id: z.string().nullable().describe("On an end user's MCP URL: the end user's id."),
      })
      .nullable()
      .describe("Action runs: who called (never the credential); null for other runs."),
  })
  .meta({ id: "ScriptRun" });
export const runWithLogsAnswer = runAnswer.extend({
  logs: z.array(z.object({ level: enumOf(LEVELS), message: z.string(), at: isoOrNull })),
  input: z.unknown().optional().describe("Action runs called with an input: that input."),
  output: z.unknown().optional().describe("Action runs that succeeded: what exec returned."),
});

export function nameOf<T extends Record<string, number>>(table: T, value: number): keyof T | null {
  return (Object.keys(table) as (keyof T)[]).find((k) => table[k] === value) ?? null;
}

function presentDeclaration(d: ScriptDeclaration | undefined) {
  const sync = d?.kind === ScriptKind.SYNC;
  const action = d?.kind === ScriptKind.ACTION;
  return {
    kind: sync ? "sync" : action ? "action" : "on-event",
    event: sync || action ? null : nameOf(EVENTS, d?.event ?? 0),
    frequency: sync ? d.frequency : null,
    frequency_ms: sync ? Number(d.frequencyMs) : null,
    auto_start: sync ? d.autoStart : null,
    webhook_subscriptions: sync ? d.webhookSubscriptions : [],
    endpoints: sync || action ? d.endpoints.map((e) => ({ method: e.method, path: e.path })) : [],
    ...(sync
      ? { models: d.models ?? {}, sync_type: d.syncType || "full", track_deletes: d.trackDeletes, scopes: d.scopes }
      : {}),
    ...(action ? { input_schema: d.inputSchema ?? null, output_schema: d.outputSchema ?? null, scopes: d.scopes } : {}),
    description: d?.description || null,
  };
}

/** One version, as listed with a script. */
export function presentVersion(v: ScriptVersion | undefined) {
  return {
    id: v?.id ?? "",
    provider_config_key: v?.providerConfigKey ?? "",
    name: v?.name ?? "",
    version: v?.version ?? 0,
    ...presentDeclaration(v?.declaration),
    filename: v?.filename || null,
    source_hash: v?.sourceHash ?? "",
    created_at: iso(v?.createdAtMs ?? 0n),
  };
}

/** A deployed script: its latest version, flat, and its settings. */
export function presentScript(s: Script | undefined) {
  return { ...presentVersion(s?.latest), forward_webhooks_too: s?.forwardWebhooksToo ?? false };
}

/** A run; its logs only when the API read one run. */
export function presentRun(r: ScriptRun | undefined, withLogs: boolean) {
  if (!r) return null;
  return {
    id: r.id,
    provider_config_key: r.providerConfigKey,
    script_name: r.scriptName,
    script_version: r.scriptVersion,
    connection_id: r.connectionId || null,
    trigger: nameOf(RUN_TRIGGERS, r.trigger),
    entry: r.entry,
    attempt: r.attempt,
    status: nameOf(RUN_STATUSES, r.status),
    started_at: iso(r.startedAtMs),
    finished_at: iso(r.finishedAtMs),
    duration_ms: r.status === RunStatus.RUNNING ? null : r.durationMs,
    logs_truncated: r.logsTruncated,
    error: r.error
      ? {
          name: r.error.name,
          message: r.error.message,
          stack: r.error.stack || null,
          status: r.error.status || null,
          body: r.error.body ? toJson(ValueSchema, r.error.body) : null,
        }
      : null,
    caller: r.caller ? presentCaller(r.caller) : null,
    ...(withLogs && r.input ? { input: toJson(ValueSchema, r.input) } : {}),
    ...(withLogs && r.output ? { output: toJson(ValueSchema, r.output) } : {}),
    ...(withLogs
      ? { logs: r.logs.map((l) => ({ level: nameOf(LEVELS, l.level), message: l.message, at: iso(l.atMs) })) }
      : {}),
  };
}

function presentCaller(c: RunCaller) {
  return {
    kind: nameOf(CALLER_KINDS, c.kind),
    name: c.name,
    key_id: c.keyId || null,
    client_id: c.clientId || null,
    end_user_id: c.endUserId || null,
  };
}
