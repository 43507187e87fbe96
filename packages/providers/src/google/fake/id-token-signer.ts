import type { FakeUser } from "./oauth-store.ts";

export const ISSUER = "https://accounts.google.com";
const KEY_ID = "fake-upstream-key-1";

/** How a token is spoiled on purpose, for tests of the receiver's checks. */
export type TokenFault = "bad-signature" | "unsigned";

/**
 * One key per process, shared by every fake: 2048-bit RSA generation costs around 100 ms, which would
 * otherwise land on each test that asks for `openid`. Tests verify through the JWKS, never the key itself.
 */
let sharedKeys: Promise<CryptoKeyPair> | undefined;

function keyPair(): Promise<CryptoKeyPair> {
  sharedKeys ??= crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  return sharedKeys;
}

/**
 * Signs RS256 JWTs (ID tokens, and the OIDC tokens of Pub/Sub pushes) and publishes the key, like
 * Google's /oauth2/v3/certs.
 */
export class IdTokenSigner {
  constructor(private readonly now: () => number) {}

  sign(user: FakeUser, clientId: string, nonce: string | undefined): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return this.signClaims({
      iss: ISSUER,
      azp: clientId,
      aud: clientId,
      sub: user.sub,
      email: user.email,
      email_verified: user.emailVerified,
      name: user.name,
      ...(nonce ? { nonce } : {}),
      iat,
      exp: iat + 3600,
    });
  }

  /** Any claims, signed with the published key; `fault` spoils the signature or drops it (alg "none"). */
  async signClaims(claims: Record<string, unknown>, fault?: TokenFault): Promise<string> {
    const header = fault === "unsigned" ? { alg: "none", typ: "JWT" } : { alg: "RS256", kid: KEY_ID, typ: "JWT" };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    if (fault === "unsigned") return `${signingInput}.`;
    const { privateKey } = await keyPair();
    const signature = new Uint8Array(
      await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, new TextEncoder().encode(signingInput)),
    );
    if (fault === "bad-signature") signature[0] = (signature[0] ?? 0) ^ 0xff;
    return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
  }

  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    const { publicKey } = await keyPair();
    const jwk = await crypto.subtle.exportKey("jwk", publicKey);
    return { keys: [{ ...jwk, kid: KEY_ID, alg: "RS256", use: "sig" } as JsonWebKey] };
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
