import type { JsonObject } from "@bufbuild/protobuf";
import type { ProviderDefinition } from "@junction/providers";

/** A successful token response (RFC 6749 section 5.1), read where the definition says it sits. */
export interface TokenSet {
  accessToken: string;
  /** Absent when the upstream issued none (re-authorization, refresh at Google). */
  refreshToken?: string;
  /** Seconds; absent when the upstream did not say (a token that never expires). */
  expiresIn?: number;
  scope?: string;
  /** The whole response, kept (encrypted) with the credentials; connection-config fields are read from it. */
  raw: JsonObject;
}

export type TokenResponseSpec = ProviderDefinition["tokenResponse"];

/** The answer's body as an object: JSON or form-encoded, whichever its content type says (else the definition's format). */
export type ParsedBody = { kind: "object"; body: JsonObject } | { kind: "html" } | { kind: "unreadable"; type: string };

export function parseTokenBody(text: string, contentType: string | null, spec: TokenResponseSpec): ParsedBody {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/html" || /^\s*<(!doctype|html)/i.test(text)) return { kind: "html" };
  const format = type.endsWith("json") ? "json" : type === "application/x-www-form-urlencoded" ? "form" : spec.format;
  const body = format === "json" ? parseJsonObject(text) : parseForm(text);
  return body ? { kind: "object", body } : { kind: "unreadable", type: type || "no content type" };
}

/** The value at a dotted path ("authed_user.access_token"); "" is the object itself. */
export function valueAt(obj: JsonObject | readonly unknown[], path: string): unknown {
  if (path === "") return obj;
  let cur: unknown = obj;
  for (const key of path.split(".")) {
    if (Array.isArray(cur)) {
      // A number indexes an array ("0.id": the first site of Atlassian's accessible resources).
      cur = /^\d+$/.test(key) ? cur[Number(key)] : undefined;
      continue;
    }
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Reads the tokens at the definition's root; a string saying what is wrong when they are not there. */
export function readTokenSet(body: JsonObject, spec: TokenResponseSpec): TokenSet | string {
  const where = spec.root === "" ? "" : ` under "${spec.root}"`;
  const root = valueAt(body, spec.root);
  if (typeof root !== "object" || root === null || Array.isArray(root))
    return `the answer has no "${spec.root}" object`;
  const r = root as JsonObject;
  const accessToken = r.access_token;
  if (typeof accessToken !== "string" || accessToken === "") return `the answer has no access_token${where}`;
  const tokenType = r.token_type;
  if (tokenType !== undefined && tokenType !== null) {
    const t = String(tokenType).toLowerCase();
    if (!spec.tokenTypes.includes(t)) {
      return `the token_type${where} is "${String(tokenType).slice(0, 40)}", not ${spec.tokenTypes.map((x) => `"${x}"`).join(" or ")} as the provider's definition expects`;
    }
  }
  const expiresIn = Number(r.expires_in);
  return {
    accessToken,
    ...(typeof r.refresh_token === "string" && r.refresh_token !== "" ? { refreshToken: r.refresh_token } : {}),
    ...(r.expires_in !== undefined && r.expires_in !== null && Number.isFinite(expiresIn) && expiresIn > 0
      ? { expiresIn }
      : {}),
    ...(typeof r.scope === "string" ? { scope: r.scope } : {}),
    raw: body,
  };
}

function parseJsonObject(text: string): JsonObject | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null;
  } catch {
    return null;
  }
}

function parseForm(text: string): JsonObject | null {
  const trimmed = text.trim();
  if (trimmed === "" || !trimmed.includes("=") || /\s/.test(trimmed)) return null;
  return Object.fromEntries(new URLSearchParams(trimmed));
}
