import { createHash } from "node:crypto";
import { randomToken } from "@junction/platform";

/** A PKCE pair (RFC 7636): the verifier stays with Junction, the S256 challenge goes upstream. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  // 48 random bytes: 64 base64url characters, inside the 43..128 the RFC allows.
  const verifier = randomToken(48);
  return { verifier, challenge: pkceS256(verifier) };
}

/** BASE64URL(SHA256(ASCII(verifier))), the S256 method. */
export function pkceS256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
