import { createHmac, randomBytes } from "node:crypto";
import { constantTimeEqual, hmacSha256 } from "@junction/platform";

/**
 * Signing of outgoing webhook messages, per Standard Webhooks (https://www.standardwebhooks.com):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the
 * base64-decoded part of the `whsec_` secret. A Nango-compatible `x-nango-hmac-sha256` header is
 * added for receivers written against Nango.
 */

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` then the base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** Decoded keys remembered at most; an environment signs with two secrets at a time, so this only bounds a leak. */
const MAX_REMEMBERED_KEYS = 64;
const decodedKeys = new Map<string, Buffer>();

/**
 * The HMAC key of a secret: the base64-decoded part after `whsec_` (the whole string if unprefixed).
 * Decoded once per secret: every message of a round is signed with the same one or two.
 */
function secretKey(secret: string): Buffer {
  let key = decodedKeys.get(secret);
  if (key) return key;
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  key = Buffer.from(encoded, "base64");
  if (key.length === 0) throw new Error("a signing secret must be whsec_ followed by base64");
  if (decodedKeys.size >= MAX_REMEMBERED_KEYS) decodedKeys.clear();
  decodedKeys.set(secret, key);
  return key;
}

function bytes(body: Uint8Array | string): Uint8Array {
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

/** The Standard Webhooks signature of one message: `v1,<base64>`. The body is signed byte for byte. */
export function signStandard(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  body: Uint8Array | string,
): string {
  // The signed content is "<id>.<timestamp>.<body>", fed in two parts (no copy of the body).
  const mac = createHmac("sha256", secretKey(secret)).update(`${msgId}.${timestampSeconds}.`).update(bytes(body));
  return `v1,${mac.digest("base64")}`;
}

/** Nango's signature: hex HMAC-SHA256 of the body bytes, keyed with the full secret string. */
export function signNango(secret: string, body: Uint8Array | string): string {
  return hmacSha256(secret, bytes(body)).toString("hex");
}

/** The signature headers of one delivery attempt. */
export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
  "x-nango-hmac-sha256": string;
}

/**
 * The headers that sign a message. `secrets` holds the current secret first, then the previous one
 * while its grace period lasts: `webhook-signature` carries one `v1,` signature per secret, so a
 * receiver that still has the old secret keeps verifying during a rotation. The Nango header has
 * room for one signature only and uses the current secret.
 */
export function signatureHeaders(
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: Uint8Array | string,
): SignatureHeaders {
  const current = secrets[0];
  if (current === undefined) throw new Error("signatureHeaders needs at least one secret");
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signStandard(s, msgId, timestampSeconds, body)).join(" "),
    "x-nango-hmac-sha256": signNango(current, body),
  };
}

/** Why a message failed verification. */
export type VerifyFailure =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "no_matching_signature";

export type VerifyResult = { valid: true } | { valid: false; reason: VerifyFailure };

/**
 * Verifies a received message the way a customer's receiver should: the timestamp within
 * `toleranceSeconds` of `nowSeconds` (replay protection), and any `v1,` signature of the header
 * matching, compared in constant time.
 */
export function verifyStandard(
  secret: string,
  headers: Headers | Record<string, string | undefined>,
  body: Uint8Array | string,
  toleranceSeconds: number,
  nowSeconds: number,
): VerifyResult {
  const header = (name: string) =>
    headers instanceof Headers
      ? (headers.get(name) ?? undefined)
      : Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const msgId = header("webhook-id");
  const timestamp = header("webhook-timestamp");
  const signatures = header("webhook-signature");
  if (!msgId || !timestamp || !signatures) return { valid: false, reason: "missing_headers" };
  if (!/^\d{1,15}$/.test(timestamp)) return { valid: false, reason: "invalid_timestamp" };
  const ts = Number(timestamp);
  if (Math.abs(nowSeconds - ts) > toleranceSeconds) return { valid: false, reason: "timestamp_out_of_tolerance" };
  const expected = signStandard(secret, msgId, ts, body);
  let match = false;
  for (const candidate of signatures.split(" ")) {
    if (candidate.startsWith("v1,") && constantTimeEqual(candidate, expected)) match = true;
  }
  return match ? { valid: true } : { valid: false, reason: "no_matching_signature" };
}
