import { errorOf } from "./api-client.ts";
import { type CommandContext, EXIT, flag, parseArgs, requiredFlag, UsageError } from "./command-kit.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** `junction proxy`: one call to the upstream API as a connection, through Junction's proxy. */
export const proxyCommand = {
  name: "proxy",
  help: `junction proxy: call the upstream API as a connection (Junction adds its fresh credentials)

  junction proxy <method> <path> --integration <key> --connection <id> [--data <json | @file>] [--header "Name: value"]...
      prints the upstream's body on stdout and its status on stderr; exit 0 for a 2xx or 3xx answer,
      1 otherwise (Junction's own refusals print their error code)`,
  async run(ctx: CommandContext, args: string[]): Promise<number> {
    const parsed = parseArgs(args, ["integration", "connection", "data", "header"]);
    const [method, path] = parsed.positional;
    if (!method || !path || parsed.positional.length > 2) throw new UsageError("expected <method> <path>");
    if (!METHODS.includes(method.toUpperCase())) throw new UsageError(`method must be one of ${METHODS.join(", ")}`);
    const headers: Record<string, string> = {
      "provider-config-key": requiredFlag(parsed, "integration"),
      "connection-id": requiredFlag(parsed, "connection"),
    };
    for (const header of parsed.values.get("header") ?? []) {
      const colon = header.indexOf(":");
      if (colon <= 0) throw new UsageError(`--header must be "Name: value", got "${header}"`);
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    }
    let body: string | undefined = flag(parsed, "data");
    if (body?.startsWith("@")) {
      const file = Bun.file(body.slice(1));
      if (!(await file.exists())) throw new UsageError(`--data: no file at ${body.slice(1)}`);
      body = await file.text();
    }
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const res = await ctx.api.raw(method.toUpperCase(), `/proxy/${path.replace(/^\/+/, "")}`, body, headers);
    const text = new TextDecoder().decode(res.body);
    // Junction's own refusal (unknown connection, a bad header): its error code, as every command prints it.
    if (res.status >= 400 && res.headers.get("content-type")?.includes("json") && isJunctionError(text)) {
      throw errorOf(res.status, JSON.parse(text));
    }
    ctx.io.err(`HTTP ${res.status}`);
    if (text) ctx.io.out(text.endsWith("\n") ? text.slice(0, -1) : text);
    return res.status < 400 ? EXIT.ok : EXIT.refused;
  },
};

function isJunctionError(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof parsed.error?.code === "string" && typeof parsed.error?.message === "string";
  } catch {
    return false;
  }
}
