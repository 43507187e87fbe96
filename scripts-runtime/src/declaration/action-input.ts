import { type FieldError, issueMessage, reportableIssues } from "@junction/platform";
import { z } from "zod";
import type { JsonSchema } from "./script-declaration.ts";

type Checker = z.ZodType;
const cache = new WeakMap<JsonSchema, Checker>();

/**
 * Why `schema` cannot check anything (an unknown type, a dangling `$ref`), or null when it can.
 * Read at deploy so that a trigger never meets a schema it cannot use.
 */
export function schemaProblem(schema: JsonSchema): string | null {
  try {
    checker(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The places where `input` breaks the action's input schema (empty when it matches), each with a
 * dotted path under `input` as the REST API names it.
 */
export function actionInputErrors(schema: JsonSchema, input: unknown): FieldError[] {
  const parsed = checker(schema).safeParse(input, { error: issueMessage });
  if (parsed.success) return [];
  // The input is the `input` field of the trigger's body.
  return reportableIssues(parsed.error.issues).map((issue) => ({
    location: "body",
    path: ["input", ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}

/** Where `value` breaks `schema` (empty when it matches): each issue's path and message. */
export function schemaIssues(schema: JsonSchema, value: unknown): { path: string[]; message: string }[] {
  const parsed = checker(schema).safeParse(value, { error: issueMessage });
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
}

function checker(schema: JsonSchema): Checker {
  let found = cache.get(schema);
  if (!found) {
    found = z.fromJSONSchema(withRequiredProperties(schema) as Parameters<typeof z.fromJSONSchema>[0]);
    cache.set(schema, found);
  }
  return found;
}

/**
 * A copy of `schema` where every name in `required` is also in `properties` (as `{}` when it was not):
 * zod's reader ignores required names it has no property for, which JSON Schema does not.
 */
function withRequiredProperties(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withRequiredProperties);
  if (schema === null || typeof schema !== "object") return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === "enum" || key === "const" || key === "default" ? value : withRequiredProperties(value);
  }
  if (Array.isArray(copy.required)) {
    const properties = { ...((copy.properties as Record<string, unknown> | undefined) ?? {}) };
    for (const name of copy.required) if (typeof name === "string" && !(name in properties)) properties[name] = {};
    copy.properties = properties;
  }
  return copy;
}
