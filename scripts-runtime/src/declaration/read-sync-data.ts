import { schemaProblem } from "./action-input.ts";
import type { DeclarationProblem } from "./read-declaration.ts";
import type { JsonSchema } from "./script-declaration.ts";

/** What a zero-yaml sync declares about its records, beyond Junction's own fields. */
export interface SyncData {
  models: Record<string, JsonSchema>;
  syncType: "full" | "incremental";
  trackDeletes: boolean;
  scopes: string[];
}

/** Nango's rule for model names (its CLI refuses others). */
const MODEL_NAME = /^[A-Z][a-zA-Z0-9_]+$/;
const MAX_MODELS = 50;

/**
 * `models` (zod schemas, already JSON Schemas in the projection, or JSON Schemas as written),
 * `syncType`, `trackDeletes` and `scopes`, checked as Nango's CLI checks them.
 */
export function readSyncData(fields: Record<string, unknown>): SyncData | { problem: DeclarationProblem } {
  const models: Record<string, JsonSchema> = {};
  const given = fields.models ?? {};
  if (!isObject(given)) return problem("models must be an object of zod schemas, e.g. { Ticket: z.object({...}) }");
  const names = Object.keys(given);
  if (names.length > MAX_MODELS) return problem(`a sync declares at most ${MAX_MODELS} models`);
  for (const name of names) {
    if (!MODEL_NAME.test(name)) {
      return problem(`model name "${name}" must start with a capital letter, then letters, digits or _`);
    }
    const schema = given[name];
    if (!isObject(schema) || "$unserializable" in schema || "$function" in schema) {
      return problem(`models.${name} must be a zod schema (z.object({...})) or a JSON Schema`);
    }
    const wrong = schemaProblem(schema as JsonSchema);
    if (wrong) return problem(`models.${name} is not a schema Junction can check records with: ${wrong}`);
    models[name] = schema as JsonSchema;
  }
  const syncType = fields.syncType ?? "full";
  if (syncType !== "full" && syncType !== "incremental") {
    return problem('syncType must be "full" or "incremental"', "syncType");
  }
  if (fields.trackDeletes !== undefined && typeof fields.trackDeletes !== "boolean") {
    return problem("trackDeletes must be true or false", "trackDeletes");
  }
  const trackDeletes = fields.trackDeletes === true;
  if (trackDeletes && syncType === "incremental") {
    return problem("trackDeletes is not supported for incremental syncs (as in Nango)", "trackDeletes");
  }
  const scopes = readScopes(fields);
  if ("problem" in scopes) return scopes;
  return { models, syncType, trackDeletes, scopes: scopes.list };
}

/** `scopes`: a list of strings, or absent. */
export function readScopes(fields: Record<string, unknown>): { list: string[] } | { problem: DeclarationProblem } {
  const scopes = fields.scopes ?? [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string" && s.length <= 255)) {
    return problem("scopes must be a list of strings", "scopes");
  }
  return { list: scopes as string[] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const problem = (message: string, key = "models") => ({ problem: { message, key } });
