import { schemaProblem } from "./action-input.ts";
import { parseFrequency } from "./frequency.ts";
import { readScopes, readSyncData } from "./read-sync-data.ts";
import {
  type JsonSchema,
  LIFECYCLE_EVENTS,
  type LifecycleEvent,
  type ScriptDeclaration,
  type ScriptEndpoint,
} from "./script-declaration.ts";

/**
 * The default export as the sandbox reports it: JSON values as they are, functions replaced by
 * `{ "$function": true }`. Produced by `describe` in the sandbox prelude.
 */
export type DeclarationProjection =
  | { export: "missing" }
  | { export: "other"; type: string }
  | { export: "object"; fields: Record<string, unknown> };

/** Why a declaration is refused; `key` is the field at fault, used to point at its line. */
export interface DeclarationProblem {
  message: string;
  key?: string;
}

export type DeclarationRead = { ok: true; declaration: ScriptDeclaration } | { ok: false; problem: DeclarationProblem };

const SYNC_KEYS = [
  "type",
  "frequency",
  "exec",
  "onWebhook",
  "webhookSubscriptions",
  "endpoint",
  "endpoints",
  "autoStart",
  "description",
  "version",
  // zero-yaml (Nango's createSync)
  "models",
  "syncType",
  "trackDeletes",
  "scopes",
  "metadata",
  "checkpoint",
];
const ON_EVENT_KEYS = ["type", "event", "exec", "description", "version"];
const ACTION_KEYS = [
  ...["type", "exec", "input", "output", "endpoint", "endpoints", "description", "version"],
  ...["scopes", "metadata"],
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const HOW_TO = "export default createSync({ ... }), createOnEvent({ ... }) or createAction({ ... })";

/** Turns the sandbox's report of a default export into a declaration, or the exact reason it is refused. */
export function readDeclaration(projection: DeclarationProjection): DeclarationRead {
  if (projection.export === "missing") return fail(`the script has no default export: write ${HOW_TO}`);
  if (projection.export === "other") {
    return fail(`the default export is ${projection.type}, not a declaration object: write ${HOW_TO}`);
  }
  const fields = projection.fields;
  const type = fields.type;
  if (type === "sync") return readSync(fields);
  // Nango's CLI writes "onEvent" where its createOnEvent was.
  if (type === "on-event" || type === "onEvent") return readOnEvent(fields);
  if (type === "action") return readAction(fields);
  if (type === undefined) {
    return fail(`the declaration has no type: write ${HOW_TO}, or set type: "sync" | "on-event" | "action"`);
  }
  return fail(`type ${JSON.stringify(type)} is not a script kind (use "sync", "on-event" or "action")`, "type");
}

function readSync(fields: Record<string, unknown>): DeclarationRead {
  const common = readCommon(fields, SYNC_KEYS);
  if ("problem" in common) return { ok: false, problem: common.problem };
  if (fields.frequency === undefined) return fail('a sync needs a frequency, e.g. frequency: "every day"');
  const frequency = parseFrequency(fields.frequency);
  if (!frequency.ok) return fail(frequency.reason, "frequency");

  const subscriptions = fields.webhookSubscriptions ?? [];
  if (!isStringList(subscriptions)) {
    return fail('webhookSubscriptions must be a list of non-empty strings, e.g. ["*"]', "webhookSubscriptions");
  }
  const hasOnWebhook = isFunction(fields.onWebhook);
  if (fields.onWebhook !== undefined && !hasOnWebhook) return fail("onWebhook must be a function", "onWebhook");
  if (subscriptions.length > 0 && !hasOnWebhook) {
    return fail("webhookSubscriptions needs an onWebhook function to receive them", "webhookSubscriptions");
  }
  if (fields.autoStart !== undefined && typeof fields.autoStart !== "boolean") {
    return fail("autoStart must be true or false", "autoStart");
  }
  const endpoints = readEndpoints(fields);
  if ("problem" in endpoints) return { ok: false, problem: endpoints.problem };
  const data = readSyncData(fields);
  if ("problem" in data) return { ok: false, problem: data.problem };
  return {
    ok: true,
    declaration: {
      kind: "sync",
      ...data,
      frequency: frequency.frequency.text,
      frequencyMs: frequency.frequency.ms,
      autoStart: fields.autoStart !== false,
      webhookSubscriptions: [...new Set(subscriptions)],
      hasOnWebhook,
      endpoints: endpoints.list,
      ...common,
    },
  };
}

function readOnEvent(fields: Record<string, unknown>): DeclarationRead {
  const common = readCommon(fields, ON_EVENT_KEYS);
  if ("problem" in common) return { ok: false, problem: common.problem };
  const event = fields.event;
  if (event === undefined) return fail(`an on-event script needs an event: ${eventList()}`);
  if (typeof event !== "string" || !(LIFECYCLE_EVENTS as readonly string[]).includes(event)) {
    return fail(`event ${JSON.stringify(event)} is not supported (use ${eventList()})`, "event");
  }
  return { ok: true, declaration: { kind: "on-event", event: event as LifecycleEvent, ...common } };
}

/**
 * An action's `input` and `output`: zod schemas (the sandbox hands them over as JSON Schemas, as
 * Nango's CLI converts them) or JSON Schemas as written. The input schema must be one Junction can
 * check with.
 */
function readAction(fields: Record<string, unknown>): DeclarationRead {
  const common = readCommon(fields, ACTION_KEYS);
  if ("problem" in common) return { ok: false, problem: common.problem };
  const schemas: Record<"input" | "output", JsonSchema | null> = { input: null, output: null };
  for (const key of ["input", "output"] as const) {
    const value = fields[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "object" || Array.isArray(value) || "$function" in value || "$unserializable" in value) {
      return fail(`${key} must be a JSON Schema object, e.g. { type: "object", properties: { ... } }`, key);
    }
    const problem = schemaProblem(value as JsonSchema);
    if (problem) return fail(`${key} is not a JSON Schema Junction can check: ${problem}`, key);
    schemas[key] = value as JsonSchema;
  }
  const endpoints = readEndpoints(fields);
  if ("problem" in endpoints) return { ok: false, problem: endpoints.problem };
  const scopes = readScopes(fields);
  if ("problem" in scopes) return { ok: false, problem: scopes.problem };
  return {
    ok: true,
    declaration: {
      kind: "action",
      scopes: scopes.list,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      endpoints: endpoints.list,
      ...common,
    },
  };
}

type Common = { description: string | null; version: string | null };

function readCommon(fields: Record<string, unknown>, allowed: string[]): Common | { problem: DeclarationProblem } {
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) {
      return { problem: { message: `unknown field "${key}" (allowed: ${allowed.join(", ")})`, key } };
    }
  }
  if (!isFunction(fields.exec)) {
    const message = fields.exec === undefined ? "the declaration has no exec function" : "exec must be a function";
    return { problem: fields.exec === undefined ? { message } : { message, key: "exec" } };
  }
  for (const key of ["description", "version"] as const) {
    const value = fields[key];
    if (value !== undefined && typeof value !== "string") {
      return { problem: { message: `${key} must be a string`, key } };
    }
  }
  return {
    description: (fields.description as string | undefined) ?? null,
    version: (fields.version as string | undefined) ?? null,
  };
}

/**
 * `endpoint: "GET /path"` (Junction), `endpoint: { method, path, group? }` (Nango's actions) or
 * `endpoints: [{ method, path, group? }]` (Nango's syncs).
 */
function readEndpoints(fields: Record<string, unknown>): { list: ScriptEndpoint[] } | { problem: DeclarationProblem } {
  const list: ScriptEndpoint[] = [];
  if (fields.endpoint !== undefined) {
    const given = fields.endpoint;
    const match = typeof given === "string" ? /^([A-Za-z]+) +(\/\S*)$/.exec(given.trim()) : null;
    const endpoint = endpointObject(match ? { method: match[1], path: match[2] } : given);
    if (!endpoint) {
      return {
        problem: {
          message:
            'endpoint must read "METHOD /path" or { method: "POST", path: "/..." }, e.g. "GET /calendar/renewal"',
          key: "endpoint",
        },
      };
    }
    list.push(endpoint);
  }
  if (fields.endpoints !== undefined) {
    const given = fields.endpoints;
    const bad = {
      problem: { message: 'endpoints must be a list of { method: "GET", path: "/..." }', key: "endpoints" },
    };
    if (!Array.isArray(given)) return bad;
    for (const item of given) {
      const endpoint = endpointObject(item);
      if (!endpoint) return bad;
      list.push(endpoint);
    }
  }
  return { list };
}

/** Nango's endpoint object, `{ method, path, group? }`, or null when it is not one. */
function endpointObject(item: unknown): ScriptEndpoint | null {
  if (typeof item !== "object" || item === null) return null;
  const { method, path, group } = item as { method?: unknown; path?: unknown; group?: unknown };
  const upper = typeof method === "string" ? method.toUpperCase() : undefined;
  if (!isMethod(upper) || typeof path !== "string" || !path.startsWith("/")) return null;
  if (group !== undefined && typeof group !== "string") return null;
  return { method: upper, path };
}

const isMethod = (m: string | undefined): m is ScriptEndpoint["method"] =>
  m !== undefined && (METHODS as readonly string[]).includes(m);
const isFunction = (v: unknown) =>
  typeof v === "object" && v !== null && (v as { $function?: unknown }).$function === true;
const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === "string" && s.trim() !== "" && s.length <= 200);
const eventList = () => LIFECYCLE_EVENTS.map((e) => `"${e}"`).join(" or ");
const fail = (message: string, key?: string): DeclarationRead => ({
  ok: false,
  problem: key === undefined ? { message } : { message, key },
});
