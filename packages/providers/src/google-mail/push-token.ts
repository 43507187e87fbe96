import { readBytesLimited } from "@junction/platform/read-limited";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { AdapterFetch } from "../adapter.ts";

/**
 * The OIDC token check of an authenticated Pub/Sub push subscription
 * (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions): an RS256 JWT signed by
 * one of Google's keys, issued by accounts.google.com, for the subscription's audience, unexpired,
 * naming the push subscription's service account in `email` with `email_verified`. A token without
 * `exp` is refused (Google's always carry one; one without would never expire).
 *
 * The key set is fetched from `pubsub_jwks_url` through the caller's `fetch` (the webhook service's:
 * the outbound address policy, https only unless the operator allowed the host, every redirect hop
 * checked), read as a stream up to 256 KiB (a larger answer is cancelled, never buffered), and
 * cached. A failure is cached too, with a backoff on the injected clock (5 s, doubling to 5 minutes):
 * pushes meanwhile are refused 503 without fetching. What a caller is told names no file, host, port
 * or status (an unauthenticated push must not learn what the network holds).
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

/** The first wait after a failed fetch, doubled after each failure in a row up to the longest. */
const FAILURE_BACKOFF_MS = 5_000;
const MAX_FAILURE_BACKOFF_MS = 300_000;

interface CachedKeys {
  keys: Promise<JWTVerifyGetKey>;
  fetchedAt: number;
}

/** The last failed fetch of a URL: no fetch again before `retryAt`. */
interface FailedKeys {
  failures: number;
  retryAt: number;
}

class KeysUnavailable extends Error {}

/** A checker with its own key cache, keyed by JWKS URL; times come from each check's `now`. */
export function pushTokenChecker(): (token: string, expect: PushTokenExpectation) => Promise<PushTokenCheck> {
  const cache = new Map<string, CachedKeys>();
  const failed = new Map<string, FailedKeys>();

  const keysFor = (expect: PushTokenExpectation, fresh: boolean): CachedKeys => {
    const url = expect.jwksUrl;
    const cached = cache.get(url);
    if (cached && !fresh && expect.now - cached.fetchedAt < KEYS_TTL_MS) return cached;
    if (cached && fresh && expect.now - cached.fetchedAt < REFETCH_COOLDOWN_MS) return cached;
    const failure = failed.get(url);
    if (failure && expect.now < failure.retryAt) {
      return { keys: Promise.reject(new KeysUnavailable(UNAVAILABLE)), fetchedAt: expect.now };
    }
    const entry: CachedKeys = { keys: fetchKeys(expect.fetch, url), fetchedAt: expect.now };
    cache.set(url, entry);
    entry.keys.then(
      () => failed.delete(url),
      () => {
        // Remembered with a backoff: pushes meanwhile are refused without fetching again.
        if (cache.get(url) === entry) cache.delete(url);
        const failures = (failed.get(url)?.failures ?? 0) + 1;
        const wait = Math.min(MAX_FAILURE_BACKOFF_MS, FAILURE_BACKOFF_MS * 2 ** (failures - 1));
        failed.set(url, { failures, retryAt: entry.fetchedAt + wait });
      },
    );
    return entry;
  };

  const verify = async (token: string, expect: PushTokenExpectation, fresh: boolean): Promise<PushTokenCheck> => {
    const { keys } = keysFor(expect, fresh);
    try {
      const { payload } = await jwtVerify(token, await keys, {
        algorithms: ["RS256"],
        issuer: ISSUERS,
        requiredClaims: ["exp"],
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

/** The one answer for every fetch failure: no file, host, port or status (see pushTokenChecker). */
const UNAVAILABLE = "The token signing keys could not be fetched; retry later.";

async function fetchKeys(fetchImpl: AdapterFetch, url: string): Promise<JWTVerifyGetKey> {
  let bytes: Uint8Array | null;
  try {
    // Never file:, data: or another scheme fetch would read, whatever fetch the caller gives.
    const scheme = new URL(url).protocol;
    if (scheme !== "https:" && scheme !== "http:") throw new Error("not http(s)");
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error("not ok");
    }
    bytes = await readBytesLimited(res.body, MAX_JWKS_BYTES);
  } catch {
    throw new KeysUnavailable(UNAVAILABLE);
  }
  if (bytes === null) throw new KeysUnavailable("The token signing key set is too large to read.");
  try {
    return createLocalJWKSet(JSON.parse(new TextDecoder().decode(bytes)) as JSONWebKeySet);
  } catch {
    throw new KeysUnavailable("The token signing key set is not a valid JWKS.");
  }
}
