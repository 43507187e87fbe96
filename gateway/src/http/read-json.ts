import {
  deepJsonField,
  type FieldError,
  type InputLocation,
  invalidArgument,
  issueMessage,
  JunctionError,
  reportableIssues,
  readTextLimited,
  tooDeep,
} from "@junction/platform";
import { Code } from "@connectrpc/connect";
import type { z } from "zod";

/**
 * Reads a JSON body up to `limit` bytes, refusing other content types, oversize bodies and values nested
 * deeper than MAX_JSON_DEPTH (checked on the text, before anything parses it).
 */
export async function readJson(req: Request, limit: number): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type.trim())) {
    throw new JunctionError(
      "invalid_content_type",
      "This endpoint takes a JSON body: send Content-Type: application/json.",
      Code.InvalidArgument,
    );
  }
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const text = await readTextLimited(req.body, limit, () => tooLarge(limit));
  if (text.trim() === "") throw invalidArgument("invalid_body", "The request body is empty; send a JSON object.");
  const deep = deepJsonField(text);
  if (deep !== null) throw tooDeep("invalid_body", deep, "body");
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message names its internals, not the caller's mistake.
    throw invalidArgument("invalid_json", "The request body is not valid JSON.", [
      { location: "body", path: "(body)", message: "is not valid JSON" },
    ]);
  }
}

/** The error of a body past its route's limit (413 in REST, InvalidArgument over RPC). */
export function tooLarge(limit: number): JunctionError {
  return new JunctionError("request_too_large", `The request body exceeds ${limit} bytes.`, Code.InvalidArgument);
}

/** What each location is called in messages. */
const LOCATION_NAMES: Record<InputLocation, string> = {
  query: "query parameters",
  body: "request body",
  header: "headers",
  path: "path parameters",
};

/** Where the input checked under each code comes from, when a caller names no location (every route names it). */
const LOCATION_OF_CODE: Record<string, InputLocation> = {
  invalid_query_params: "query",
  invalid_body: "body",
  invalid_headers: "header",
  invalid_uri_params: "path",
};

/**
 * Validates with a zod schema; failures become `code` (invalid_body / invalid_query_params...), with one
 * entry per bad field in `errors`, each saying its `location` (query, body, header, path) and its path
 * inside it (an unknown field is its own entry: `{location:"query", path:"colour"}`).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: string,
  location: InputLocation = LOCATION_OF_CODE[code] ?? "body",
): z.infer<S> {
  const result = schema.safeParse(value, { error: issueMessage });
  if (result.success) return result.data;
  const errors: FieldError[] = reportableIssues(result.error.issues).flatMap((i) => {
    const at = i.path.map(String);
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({
        location,
        path: [...at, k].join("."),
        message: `is not a known ${location === "query" ? "parameter" : "field"}`,
      }));
    }
    return [{ location, path: at.length > 0 ? at.join(".") : `(${location})`, message: i.message }];
  });
  const listed = errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  throw invalidArgument(code, `Invalid ${LOCATION_NAMES[location]}: ${listed}`, errors);
}

/** The query string as a plain object; repeated keys become arrays. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
