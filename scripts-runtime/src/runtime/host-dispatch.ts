import { JunctionError, type Logger } from "@junction/platform";
import { z } from "zod";
import type { JsonValue } from "./run-types.ts";
import { dispatchRecordsCall, RECORD_SIGNATURES } from "./records-dispatch.ts";
import { type ProxyConfiguration, type ScriptHost, ScriptHostError } from "./script-host.ts";

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)]),
);
const metadata = z.record(z.string(), json);
const optionalName = z.string().min(1).max(255).nullable();

const proxyConfig = z.strictObject({
  endpoint: z.string().min(1).max(8192),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
  params: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))]))
    .optional(),
  data: json.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  retries: z.number().int().min(0).max(10).optional(),
  retryOn: z.array(z.number().int().min(100).max(599)).max(20).optional(),
  baseUrlOverride: z.url({ protocol: /^https?$/ }).optional(),
  decompress: z.boolean().optional(),
  responseType: z.enum(["json", "text"]).optional(),
  providerConfigKey: z.string().min(1).max(255).optional(),
  connectionId: z.string().min(1).max(255).optional(),
});

/**
 * The parent's check of each script API call. The prelude checks the same things to throw at the
 * script's own line, but a script can tamper with what the prelude relies on (its own globals),
 * so this is the one that counts: nothing unchecked reaches a ScriptHost.
 */
const SIGNATURES = {
  proxy: z.tuple([proxyConfig]),
  getConnection: z.tuple([optionalName, optionalName]),
  getMetadata: z.tuple([]),
  setMetadata: z.tuple([metadata]),
  updateMetadata: z.tuple([metadata]),
  getWebhookURL: z.tuple([]),
  ...RECORD_SIGNATURES,
} as const;

type Method = keyof typeof SIGNATURES;

/** The reply to a host call, as the prelude reads it. */
export type HostReply =
  | { ok: true; value: JsonValue }
  | {
      ok: false;
      error: {
        type: "TypeError" | "ScriptApiError";
        message: string;
        status?: number;
        body?: JsonValue;
        code?: string;
      };
    };

/** Calls the host for one script API call and turns the outcome into the JSON text of a reply. */
export async function dispatchHostCall(
  host: ScriptHost,
  method: string,
  argsJson: string,
  maxReplyBytes: number,
  logger?: Logger,
): Promise<string> {
  let reply: HostReply;
  try {
    reply = await callHost(host, method, argsJson, logger);
  } catch (err) {
    // Nothing may leave a script's call unanswered: it would wait until the run's deadline.
    logger?.error("script API call failed", { method, cause: err });
    reply = apiError(`nango.${method} failed because of an internal error`, 500, null, "internal_error");
  }
  const text = JSON.stringify(reply);
  if (text.length <= maxReplyBytes) return text;
  const message = `the result of ${method} is larger than the script's memory limit allows (${text.length} bytes)`;
  return JSON.stringify({ ok: false, error: { type: "ScriptApiError", message, status: 413, body: null } });
}

/** The reply to a call refused because the run's calls hold too much of the host (HostCallGate). */
export function busyReply(message: string): string {
  return JSON.stringify(apiError(message, 429, null, "script_api_busy"));
}

async function callHost(host: ScriptHost, method: string, argsJson: string, logger?: Logger): Promise<HostReply> {
  if (!Object.hasOwn(SIGNATURES, method)) return typeError(`unknown script API function "${method}"`);
  const given = safeJson(argsJson);
  // The checks below recurse; a value nested deeper than any real payload is refused before them.
  if (nestedDeeperThan(given, MAX_ARGUMENT_DEPTH)) {
    return typeError(`nango.${method}: arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
  }
  const parsed = SIGNATURES[method as Method].safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `argument ${describePath(issue.path)}` : "arguments";
    return typeError(`nango.${method}: ${where}: ${issue?.message ?? "invalid"}`);
  }
  const args = parsed.data as unknown[];
  try {
    switch (method as Method) {
      case "proxy": {
        const response = await host.proxy(args[0] as ProxyConfiguration);
        if (response.status >= 400) {
          const message = `${(args[0] as ProxyConfiguration).method} ${(args[0] as ProxyConfiguration).endpoint} failed with status ${response.status}`;
          return apiError(message, response.status, response.data, undefined, response.headers);
        }
        return { ok: true, value: { status: response.status, headers: response.headers, data: response.data } };
      }
      case "getConnection":
        return { ok: true, value: await host.getConnection(args[0] as string | null, args[1] as string | null) };
      case "getMetadata":
        return { ok: true, value: await host.getMetadata() };
      case "setMetadata":
        await host.setMetadata(args[0] as { [key: string]: JsonValue });
        return { ok: true, value: null };
      case "updateMetadata":
        await host.updateMetadata(args[0] as { [key: string]: JsonValue });
        return { ok: true, value: null };
      case "getWebhookURL":
        return { ok: true, value: await host.getWebhookURL() };
      default:
        return { ok: true, value: await dispatchRecordsCall(host, method as keyof typeof RECORD_SIGNATURES, args) };
    }
  } catch (err) {
    if (err instanceof ScriptHostError) return apiError(err.message, err.status, err.body, err.code);
    // A domain error's message and code are public by design (they reach API error bodies).
    if (err instanceof JunctionError) return apiError(err.message, 500, { error: { code: err.code } }, err.code);
    logger?.error("script API call failed", { method, cause: err });
    return apiError(`nango.${method} failed because of an internal error`, 500, null, "internal_error");
  }
}

const typeError = (message: string): HostReply => ({ ok: false, error: { type: "TypeError", message } });

function apiError(
  message: string,
  status: number,
  body: JsonValue,
  code?: string,
  headers?: Record<string, string>,
): HostReply {
  const error: HostReply & { ok: false } = { ok: false, error: { type: "ScriptApiError", message, status, body } };
  if (code !== undefined) error.error.code = code;
  if (headers !== undefined) Object.assign(error.error, { headers });
  return error;
}

/** Arrays and objects inside each other, at most, in a script API call's arguments. */
export const MAX_ARGUMENT_DEPTH = 256;

/** Whether `value` nests arrays and objects more than `limit` deep (iterative: no stack to overflow). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describePath(path: PropertyKey[]): string {
  const [index, ...rest] = path;
  return `${Number(index) + 1}${rest.length ? ` (${rest.map(String).join(".")})` : ""}`;
}
