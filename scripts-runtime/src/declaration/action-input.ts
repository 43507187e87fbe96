import type { FieldError } from "@junction/platform";
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
  const parsed = checker(schema).safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    path: ["input", ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}

function checker(schema: JsonSchema): Checker {
  let found = cache.get(schema);
  if (!found) {
    found = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    cache.set(schema, found);
  }
  return found;
}
