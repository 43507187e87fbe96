import type { ProviderDefinition } from "@junction/providers";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import type { HttpFetch } from "../context.ts";
import { parseTokenBody, readTokenSet, type TokenSet } from "./token-answer.ts";

export type { TokenSet } from "./token-answer.ts";

/** Why a token request failed. Only `refused` comes from the upstream's OAuth error (section 5.2). */
export type TokenFailure =
  | { kind: "refused"; status: number; error: string; description: string }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "unreachable"; detail: string }
  | { kind: "invalid_response"; status: number; detail: string };

export type TokenResult = { ok: true; token: TokenSet } | { ok: false; failure: TokenFailure };

/** What a token request needs of the provider's definition. */
export type TokenRequestDefinition = Pick<ProviderDefinition, "clientAuthentication" | "tokenParams" | "tokenResponse">;

/** One token request: the grant's parameters and the client that makes it. */
export interface TokenRequest {
  tokenUrl: string;
  /** grant_type and the grant's own parameters; the definition's token parameters are added. */
  params: Record<string, string>;
  clientId: string;
  clientSecret: string;
  definition: TokenRequestDefinition;
}

/**
 * POSTs a token request (form-encoded; the client authenticated as the definition says, RFC 6749 2.3.1)
 * with a real-time timeout, and reads the answer as the definition says (JSON or form, tokens at a
 * nested root, accepted token types). It never throws and never logs: parameters and answers hold secrets.
 */
export async function requestToken(fetchImpl: HttpFetch, req: TokenRequest, timeoutMs: number): Promise<TokenResult> {
  const { definition } = req;
  const body = new URLSearchParams({ ...definition.tokenParams, ...req.params });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: definition.tokenResponse.format === "form" ? "application/x-www-form-urlencoded" : "application/json",
  };
  if (definition.clientAuthentication === "client_secret_basic") {
    // RFC 6749 2.3.1: each part form-urlencoded before the Basic encoding.
    const user = `${formEncode(req.clientId)}:${formEncode(req.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(user, "utf8").toString("base64")}`;
  } else {
    body.set("client_id", req.clientId);
    body.set("client_secret", req.clientSecret);
  }
  let res: Response;
  let text: string;
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    res = await fetchImpl(req.tokenUrl, { method: "POST", headers, body: body.toString(), redirect: "manual", signal });
    // The body read shares the deadline: a server that sends headers and then stalls also times out.
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") return fail({ kind: "timeout", timeoutMs });
    return fail({ kind: "unreachable", detail: describeNetworkError(err) });
  }
  const parsed = parseTokenBody(text, res.headers.get("content-type"), definition.tokenResponse);
  if (parsed.kind === "html") {
    return fail({ kind: "invalid_response", status: res.status, detail: "an HTML page, not a token answer" });
  }
  if (parsed.kind === "unreadable") {
    return fail({ kind: "invalid_response", status: res.status, detail: `${parsed.type} that does not parse` });
  }
  const answer = parsed.body;
  // Some providers answer errors with a 200 ({"ok":false,"error":...}): an error field without a token is a refusal.
  if (
    typeof answer.error === "string" &&
    answer.error !== "" &&
    (res.status >= 400 || typeof readTokenSet(answer, definition.tokenResponse) === "string")
  ) {
    const description = typeof answer.error_description === "string" ? answer.error_description : "";
    return fail({ kind: "refused", status: res.status, error: answer.error, description });
  }
  if (res.status >= 200 && res.status < 300) {
    const token = readTokenSet(answer, definition.tokenResponse);
    if (typeof token === "string") return fail({ kind: "invalid_response", status: res.status, detail: token });
    return { ok: true, token };
  }
  return fail({ kind: "invalid_response", status: res.status, detail: "an error answer without an error field" });
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

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

function describeNetworkError(err: unknown): string {
  // The operator's own configuration was refused: the policy's words say which host and why.
  if (err instanceof AddressRefusedError) return err.message;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : (err as Error).message.slice(0, 200);
}
