import type { RouteContext } from "../../router.ts";
import { toErrorResponse } from "../../http/error-response.ts";
import { htmlPage } from "./html-page.ts";

/** Whether the caller is a browser navigating (it gets pages), rather than a program (it gets JSON). */
export function wantsHtml(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/html");
}

/**
 * Any error on a browser route, as the one error body or, for a browser, as a page with the same
 * status, code and message. Unknown errors are logged and shown as internal_error with the request id.
 */
export async function browserError(err: unknown, ctx: RouteContext, html: boolean, heading: string): Promise<Response> {
  const res = toErrorResponse(err, ctx.logger, ctx.requestId);
  if (!html) return res;
  const body = (await res.json()) as { error: { code: string; message: string } };
  return htmlPage(
    res.status,
    { title: heading, code: body.error.code, heading, message: body.error.message },
    ctx.requestId,
  );
}
