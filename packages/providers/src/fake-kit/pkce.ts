import { createHash } from "node:crypto";

/** RFC 7636 check; a missing method means "plain", as the RFC says. */
export function pkceMatches(verifier: string, challenge: string, method = "plain"): boolean {
  if (method === "plain") return verifier === challenge;
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}

/** The S256 challenge for `verifier`, for tests that play the client. */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}
