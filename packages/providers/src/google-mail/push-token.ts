import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { AdapterFetch } from "../adapter.ts";

/**
 * The OIDC token check of an authenticated Pub/Sub push subscription
 * (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions): an RS256 JWT signed by
 * one of Google's keys, issued by accounts.google.com, for the subscription's audience, unexpired,
 * naming the push subscription's service account in `email` with `email_verified`.
 */
export interface PushTokenExpectation {
  /** Checked when not "". */
  audience: string;
  /** Checked when not "": the token's `email`, which must also be verified. */
  serviceAccountEmail: string;
  jwksUrl: string;
  now: number;
  fetch: AdapterFetch;
}

export type PushTokenCheck = { ok: true } | { ok: false; status: 403 | 503; code: string; message: string };

/** Google's documented issuers of the push token. */
const ISSUERS = ["accounts.google.com", "https://accounts.google.com"];
/** How long fetched keys are used before they are fetched again (Google rotates them over days). */
const KEYS_TTL_MS = 3600_000;
/** A token naming a key not in the cached set fetches the set again, at most this often (rotation). */
const REFETCH_COOLDOWN_MS = 60_000;
/** Real time allowed for fetching the keys. */
const FETCH_TIMEOUT_MS = 5_000;
/** A key set larger than this is not read (Google's is about 2 KB). */
const MAX_JWKS_BYTES = 256 * 1024;

interface CachedKeys {
  keys: Promise<JWTVerifyGetKey>;
  fetchedAt: number;
}

class KeysUnavailable extends Error {}

/** A checker with its own key cache, keyed by JWKS URL; times come from each check's `now`. */
export function pushTokenChecker(): (token: string, expect: PushTokenExpectation) => Promise<PushTokenCheck> {
  const cache = new Map<string, CachedKeys>();

  const keysFor = (expect: PushTokenExpectation, fresh: boolean): CachedKeys => {
    const cached = cache.get(expect.jwksUrl);
    if (cached && !fresh && expect.now - cached.fetchedAt < KEYS_TTL_MS) return cached;
    if (cached && fresh && expect.now - cached.fetchedAt < REFETCH_COOLDOWN_MS) return cached;
    const entry: CachedKeys = { keys: fetchKeys(expect.fetch, expect.jwksUrl), fetchedAt: expect.now };
    cache.set(expect.jwksUrl, entry);
    // A failed fetch is not kept: the next push tries again.
    entry.keys.catch(() => {
      if (cache.get(expect.jwksUrl) === entry) cache.delete(expect.jwksUrl);
    });
    return entry;
  };

  const verify = async (token: string, expect: PushTokenExpectation, fresh: boolean): Promise<PushTokenCheck> => {
    const { keys } = keysFor(expect, fresh);
    try {
      const { payload } = await jwtVerify(token, await keys, {
        algorithms: ["RS256"],
        issuer: ISSUERS,
        ...(expect.audience ? { audience: expect.audience } : {}),
        currentDate: new Date(expect.now),
      });
      if (expect.serviceAccountEmail) {
        if (payload.email !== expect.serviceAccountEmail || payload.email_verified !== true) {
          return invalid("does not name the configured service account as a verified email");
        }
      }
      return { ok: true };
    } catch (err) {
      if (err instanceof KeysUnavailable) {
        return { ok: false, status: 503, code: "pubsub_keys_unavailable", message: err.message };
      }
      if (err instanceof errors.JWKSNoMatchingKey && !fresh) return verify(token, expect, true);
      return invalid(reasonOf(err));
    }
  };

  return (token, expect) => verify(token, expect, false);
}

function invalid(reason: string): PushTokenCheck {
  return {
    ok: false,
    status: 403,
    code: "pubsub_token_invalid",
    message: `The push request's bearer token ${reason}; the notification was not recorded.`,
  };
}

/** Why a token failed, in words that never repeat the token or its claims' values. */
function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "has expired";
  if (err instanceof errors.JWTClaimValidationFailed) return `has an unexpected "${err.claim}" claim`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return "has a signature that does not verify";
  if (err instanceof errors.JWKSNoMatchingKey) return "is signed by a key not in the configured key set";
  if (err instanceof errors.JOSEAlgNotAllowed) return "is not signed with RS256";
  return "is not a well-formed signed JWT";
}

async function fetchKeys(fetchImpl: AdapterFetch, url: string): Promise<JWTVerifyGetKey> {
  let text: string;
  try {
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`status ${res.status}`);
    text = await res.text();
  } catch (err) {
    throw new KeysUnavailable(`The token signing keys could not be fetched (${(err as Error).message}); retry later.`);
  }
  if (text.length > MAX_JWKS_BYTES) throw new KeysUnavailable("The token signing key set is too large to read.");
  try {
    return createLocalJWKSet(JSON.parse(text) as JSONWebKeySet);
  } catch {
    throw new KeysUnavailable("The token signing key set is not a valid JWKS.");
  }
}
