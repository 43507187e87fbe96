import { invalidArgument, JunctionError, readTextLimited } from "@junction/platform";
import { Code } from "@connectrpc/connect";
import type { z } from "zod";

/** Reads a JSON body up to `limit` bytes, refusing other content types and oversize bodies. */
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
  if (text.trim() === "")
    throw invalidArgument("invalid_body", "The request body is empty; a JSON object is expected.");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalidArgument("invalid_json", `The request body is not valid JSON: ${(err as Error).message}`);
  }
}

function tooLarge(limit: number): JunctionError {
  return new JunctionError("request_too_large", `The request body exceeds ${limit} bytes.`, Code.InvalidArgument);
}

/** Validates with a zod schema; failures become `code` (invalid_body / invalid_query_params) naming each field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, code: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.map((i) => ({
    path: i.path.length > 0 ? i.path.join(".") : "(body)",
    message: i.code === "unrecognized_keys" ? `unknown field(s): ${i.keys.join(", ")}` : i.message,
  }));
  const what = code === "invalid_query_params" ? "query parameters" : "request body";
  throw invalidArgument(code, `Invalid ${what}: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`, errors);
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
