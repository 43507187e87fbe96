import type { JsonObject } from "@bufbuild/protobuf";
import type { HttpFetch } from "../context.ts";

/** A successful token response (RFC 6749 section 5.1). */
export interface TokenSet {
  accessToken: string;
  /** Absent when the upstream issued none (re-authorization, refresh at Google). */
  refreshToken?: string;
  /** Seconds; absent when the upstream did not say. */
  expiresIn?: number;
  scope?: string;
  /** The whole response, kept (encrypted) with the credentials. */
  raw: JsonObject;
}

/** Why a token request failed. Only `refused` comes from the upstream's OAuth error (section 5.2). */
export type TokenFailure =
  | { kind: "refused"; status: number; error: string; description: string }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "unreachable"; detail: string }
  | { kind: "invalid_response"; status: number; detail: string };

export type TokenResult = { ok: true; token: TokenSet } | { ok: false; failure: TokenFailure };

/**
 * POSTs a token request (form-encoded, client credentials in the body as Google expects) with a
 * real-time timeout. It never throws and never logs: parameters and responses hold secrets.
 */
export async function requestToken(
  fetchImpl: HttpFetch,
  tokenUrl: string,
  params: Record<string, string>,
  timeoutMs: number,
): Promise<TokenResult> {
  let res: Response;
  let text: string;
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    res = await fetchImpl(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(params).toString(),
      redirect: "manual",
      signal,
    });
    // The body read shares the deadline: a server that sends headers and then stalls also times out.
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") return fail({ kind: "timeout", timeoutMs });
    return fail({ kind: "unreachable", detail: describeNetworkError(err) });
  }
  const body = parseJsonObject(text);
  if (res.status >= 200 && res.status < 300) {
    if (!body) return fail({ kind: "invalid_response", status: res.status, detail: describeNonJson(res) });
    const accessToken = body.access_token;
    if (typeof accessToken !== "string" || accessToken === "") {
      return fail({ kind: "invalid_response", status: res.status, detail: "the JSON has no access_token" });
    }
    const expiresIn = Number(body.expires_in);
    return {
      ok: true,
      token: {
        accessToken,
        ...(typeof body.refresh_token === "string" && body.refresh_token !== ""
          ? { refreshToken: body.refresh_token }
          : {}),
        ...(body.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresIn } : {}),
        ...(typeof body.scope === "string" ? { scope: body.scope } : {}),
        raw: body,
      },
    };
  }
  if (body && typeof body.error === "string") {
    const description = typeof body.error_description === "string" ? body.error_description : "";
    return fail({ kind: "refused", status: res.status, error: body.error, description });
  }
  return fail({
    kind: "invalid_response",
    status: res.status,
    detail: body ? "the JSON error has no error field" : describeNonJson(res),
  });
}

/** Whether a failure may pass by itself (so a short cooldown, and no "re-authorize" advice). */
export function isTransient(failure: TokenFailure): boolean {
  return failure.kind !== "refused" || failure.status >= 500;
}

/** A short description for people; never contains the request's parameters. */
export function describeTokenFailure(failure: TokenFailure): string {
  switch (failure.kind) {
    case "refused":
      return `the token endpoint refused the request (HTTP ${failure.status}): ${failure.error}${failure.description ? ` (${failure.description})` : ""}`;
    case "timeout":
      return `the token endpoint did not answer within ${failure.timeoutMs} ms`;
    case "unreachable":
      return `the token endpoint could not be reached (${failure.detail})`;
    case "invalid_response":
      return `the token endpoint answered HTTP ${failure.status} with something that is not a token response (${failure.detail})`;
  }
}

/** The upstream error code of a failure, or how the call failed. */
export function failureCode(failure: TokenFailure): string {
  switch (failure.kind) {
    case "refused":
      return failure.error;
    case "timeout":
      return "timeout";
    case "unreachable":
      return "unreachable";
    case "invalid_response":
      return "invalid_response";
  }
}

function fail(failure: TokenFailure): TokenResult {
  return { ok: false, failure };
}

function parseJsonObject(text: string): JsonObject | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null;
  } catch {
    return null;
  }
}

function describeNonJson(res: Response): string {
  const type = (res.headers.get("content-type") ?? "no content type").split(";")[0]?.trim();
  return `${type}, not JSON`;
}

function describeNetworkError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : (err as Error).message.slice(0, 200);
}
