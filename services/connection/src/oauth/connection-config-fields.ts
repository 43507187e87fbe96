import type { JsonObject } from "@bufbuild/protobuf";
import type { ProviderAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { connectionBaseUrl } from "./oauth-client.ts";
import { type TokenSet, valueAt } from "./token-answer.ts";

export type ConfigFieldsResult = { ok: true; values: Record<string, unknown> } | { ok: false; message: string };

/**
 * Reads the definition's connection-config fields after a code exchange, in order: from the token answer
 * (Salesforce's `instance_url`), from the callback's query (QuickBooks' `realmId`), or from a GET with the
 * new access token (an account id), whose URL may use the fields read before it. Each field is required:
 * one that cannot be read fails the authorization.
 */
export async function readConnectionConfigFields(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  token: TokenSet,
  baseUrl: string,
  config: Readonly<Record<string, unknown>>,
  callbackParams: Readonly<Record<string, string>> = {},
): Promise<ConfigFieldsResult> {
  const values: Record<string, unknown> = {};
  const fail = (key: string, why: string): ConfigFieldsResult => ({
    ok: false,
    message: `Provider "${template.name}" definition's connection_config.${key} could not be read: ${why}. Nothing was saved. Try again; if it persists, check the provider's definition (connectionConfig).`,
  });
  for (const field of template.connectionConfig) {
    if (field.from === "token_response") {
      const value = scalar(valueAt(token.raw, field.path));
      if (value === undefined) return fail(field.key, `the token answer has no "${field.path}"`);
      values[field.key] = value;
      continue;
    }
    if (field.from === "callback") {
      const value = scalar(callbackParams[field.param]);
      if (value === undefined) return fail(field.key, `the authorization callback has no "${field.param}" parameter`);
      values[field.key] = value;
      continue;
    }
    let url: string;
    try {
      const merged = { ...config, ...values };
      url = field.url.startsWith("/")
        ? `${connectionBaseUrl(integ, template, baseUrl, merged).replace(/\/+$/, "")}${field.url}`
        : connectionBaseUrl(integ, template, field.url, merged);
    } catch (err) {
      return fail(field.key, (err as Error).message);
    }
    const body = await getJson(ctx, url, token.accessToken);
    if (typeof body === "string") return fail(field.key, `GET ${new URL(url).pathname} ${body}`);
    const value = scalar(valueAt(body, field.path));
    if (value === undefined) return fail(field.key, `GET ${new URL(url).pathname} answered without "${field.path}"`);
    values[field.key] = value;
  }
  return { ok: true, values };
}

function scalar(v: unknown): string | number | undefined {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  return undefined;
}

/** A JSON object or array, or what went wrong (never the token). */
async function getJson(
  ctx: ConnectionServiceContext,
  url: string,
  accessToken: string,
): Promise<JsonObject | unknown[] | string> {
  try {
    const res = await ctx.fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(ctx.oauth.tokenRequestTimeoutMs),
    });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) return `answered HTTP ${res.status}`;
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v)) return v;
    return typeof v === "object" && v !== null
      ? (v as JsonObject)
      : "answered JSON that is neither an object nor an array";
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError")
      return `did not answer within ${ctx.oauth.tokenRequestTimeoutMs} ms`;
    if (err instanceof SyntaxError) return "answered something that is not JSON";
    return "could not be reached";
  }
}
