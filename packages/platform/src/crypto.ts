import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * AES-256-GCM envelope for secrets at rest: `enc:v1:<key id>:<iv>:<ciphertext+tag>` (base64url).
 * The key id lets old ciphertexts be read after rotation: the first key encrypts, all decrypt.
 */
export class Encryptor {
  private readonly keys = new Map<string, Buffer>();
  private readonly primaryId: string;

  constructor(primary: Buffer, previous: Buffer[] = []) {
    for (const k of [primary, ...previous]) {
      if (k.length !== 32) throw new Error("encryption keys must be 32 bytes (base64-encoded)");
      this.keys.set(keyId(k), k);
    }
    this.primaryId = keyId(primary);
  }

  /** Parses keys given as base64 (standard or url-safe). */
  static fromBase64(primary: string, previous: string[] = []): Encryptor {
    return new Encryptor(
      decodeKey(primary),
      previous.filter((p) => p.trim() !== "").map((p) => decodeKey(p)),
    );
  }

  encrypt(plaintext: string): string {
    const key = this.keys.get(this.primaryId) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `enc:v1:${this.primaryId}:${iv.toString("base64url")}:${ct.toString("base64url")}`;
  }

  decrypt(envelope: string): string {
    const parts = envelope.split(":");
    if (parts.length !== 5 || parts[0] !== "enc" || parts[1] !== "v1") throw new Error("not an encrypted value");
    const key = this.keys.get(parts[2] as string);
    if (!key) throw new Error(`no key ${parts[2]} to decrypt with (was the encryption key rotated out?)`);
    const iv = Buffer.from(parts[3] as string, "base64url");
    const data = Buffer.from(parts[4] as string, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
  }

  /** Whether a value was encrypted with a key other than the primary (needs re-encryption). */
  isStale(envelope: string): boolean {
    return envelope.split(":")[2] !== this.primaryId;
  }
}

/** The shortest secret key accepted: shorter ones could be guessed. */
export const SECRET_KEY_MIN_LENGTH = 16;

function decodeKey(text: string): Buffer {
  const buf = Buffer.from(text.trim().replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (buf.length !== 32)
    throw new Error("an encryption key must be 32 bytes, base64-encoded (openssl rand -base64 32)");
  return buf;
}

function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

export function hmacSha256(key: string | Uint8Array, data: string | Uint8Array): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
