import { invalidArgument, readTextLimited } from "@junction/platform";

/**
 * A small form or JSON body as string fields (the login form). Anything larger than `limit` bytes, or of
 * another content type, is refused with 400 `invalid_body`.
 */
export async function readForm(req: Request, limit: number): Promise<Record<string, string>> {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw invalidArgument("invalid_body", `The form exceeds ${limit} bytes.`);
  const text = await readTextLimited(req.body, limit, () =>
    invalidArgument("invalid_body", `The form exceeds ${limit} bytes.`),
  );
  if (type.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (type.startsWith("application/json")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        return Object.fromEntries(
          Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"),
        );
      }
    } catch {
      // Falls through to the error below.
    }
    throw invalidArgument("invalid_body", "The body must be a JSON object of strings.");
  }
  throw invalidArgument("invalid_body", "Send the form as application/x-www-form-urlencoded or JSON.");
}
