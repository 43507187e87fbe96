import type { FakeUser } from "./oauth-store.ts";

export const ISSUER = "https://accounts.google.com";
const KEY_ID = "fake-upstream-key-1";

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

/** Signs RS256 ID tokens and publishes the key, like Google's /oauth2/v3/certs. */
export class IdTokenSigner {
  constructor(private readonly now: () => number) {}

  async sign(user: FakeUser, clientId: string, nonce: string | undefined): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    const claims = {
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
    };
    const header = { alg: "RS256", kid: KEY_ID, typ: "JWT" };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const { privateKey } = await keyPair();
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, new TextEncoder().encode(signingInput));
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
