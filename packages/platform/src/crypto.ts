import { Code } from "@connectrpc/connect";
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { JunctionError } from "./errors.ts";

/**
 * A stored secret that cannot be opened here: another row's ciphertext, altered, or an unknown key.
 * A 500 with a stable code at the gateway (the data is wrong, not the request); never the value.
 */
export class DecryptionError extends JunctionError {
  constructor(reason: string) {
    super("stored_secret_unreadable", `A stored secret could not be decrypted: ${reason}.`, Code.DataLoss);
    this.name = "DecryptionError";
  }
}

/** One encryption key and the id written in front of what it seals. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The row a secret belongs to, as associated data: the same ciphertext in any other row (another
 * connection, environment or integration) fails authentication instead of decrypting there.
 */
export function secretContext(kind: string, ...parts: string[]): string {
  return JSON.stringify([kind, ...parts]);
}

/**
 * AES-256-GCM envelope for secrets at rest. Written as `enc:v2:<key id>:<iv>:<ciphertext+tag>`
 * (base64url) with associated data naming the format, the key id and the row's context
 * (`secretContext`). `enc:v1:` envelopes (the unbound format: no associated data, key id = a hash of the
 * key) are still read, flagged stale, and rewritten by `junction rekey`. The first key encrypts,
 * every key decrypts.
 */
export class Encryptor {
  private readonly keys = new Map<string, Buffer>();
  /** v1 envelopes (and v2 ones sealed before the key was given an id) name a key by a hash of it. */
  private readonly legacyKeys = new Map<string, Buffer>();
  private readonly primaryId: string;
  /** The HMAC keys of `digest`, derived from each encryption key on first use. */
  private readonly macKeys = new Map<string, Buffer>();

  /** Whether `enc:v1:` values (bound to no row) still open; off once `junction rekey` has run. */
  private readonly acceptUnbound: boolean;

  constructor(
    primary: Buffer | EncryptionKey,
    previous: (Buffer | EncryptionKey)[] = [],
    options: { acceptUnbound?: boolean } = {},
  ) {
    this.acceptUnbound = options.acceptUnbound ?? true;
    const all = [primary, ...previous].map((k) => (Buffer.isBuffer(k) ? { id: hashId(k), key: k } : k));
    for (const { id, key } of all) {
      if (key.length !== 32) throw new Error("encryption keys must be 32 bytes (base64-encoded)");
      if (!KEY_ID.test(id)) throw new Error(`encryption key id "${id}" must be 1-32 of A-Z a-z 0-9 _ -`);
      if (this.keys.has(id)) throw new Error(`encryption key id "${id}" is listed twice`);
      this.keys.set(id, key);
      this.legacyKeys.set(hashId(key), key);
    }
    this.primaryId = (all[0] as EncryptionKey).id;
  }

  /** Parses keys given as base64 (standard or url-safe); their ids are a hash of each key. */
  static fromBase64(primary: string, previous: string[] = [], options: { acceptUnbound?: boolean } = {}): Encryptor {
    return new Encryptor(
      decodeKey(primary),
      previous.filter((p) => p.trim() !== "").map((p) => decodeKey(p)),
      options,
    );
  }

  /** Parses `id:base64,id:base64,...` (the first is current); `base64` alone takes a hash as its id. */
  static parseKeyList(list: string): EncryptionKey[] {
    return list
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .map((entry) => {
        const at = entry.indexOf(":");
        const key = decodeKey(at < 0 ? entry : entry.slice(at + 1));
        return { id: at < 0 ? hashId(key) : entry.slice(0, at), key };
      });
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.primaryId;
  }

  /** Seals `plaintext` for the row named by `context` (see `secretContext`). */
  encrypt(plaintext: string, context: string): string {
    const key = this.keys.get(this.primaryId) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(associatedData(this.primaryId, context));
    const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `enc:v2:${this.primaryId}:${iv.toString("base64url")}:${ct.toString("base64url")}`;
  }

  /** Opens an envelope sealed for `context`; throws DecryptionError (never the plaintext) otherwise. */
  decrypt(envelope: string, context: string): string {
    const parts = envelope.split(":");
    const version = parts[1];
    if (parts.length !== 5 || parts[0] !== "enc" || (version !== "v1" && version !== "v2")) {
      throw new DecryptionError("not an encrypted value");
    }
    const id = parts[2] as string;
    if (version === "v1" && !this.acceptUnbound) {
      throw new DecryptionError("it is in the format bound to no record (enc:v1), refused by this configuration");
    }
    const key = version === "v1" ? this.legacyKeys.get(id) : (this.keys.get(id) ?? this.legacyKeys.get(id));
    if (!key) throw new DecryptionError(`no key "${id}" to decrypt with (was it removed from the configuration?)`);
    const iv = Buffer.from(parts[3] as string, "base64url");
    const data = Buffer.from(parts[4] as string, "base64url");
    if (iv.length !== 12 || data.length < 16) throw new DecryptionError("truncated value");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      if (version === "v2") decipher.setAAD(associatedData(id, context));
      decipher.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      throw new DecryptionError("it was sealed for another record, or altered");
    }
  }

  /** Whether a value needs re-encryption: an old format, or a key other than the current one. */
  isStale(envelope: string): boolean {
    const parts = envelope.split(":");
    return parts[1] !== "v2" || parts[2] !== this.primaryId;
  }

  /**
   * A keyed digest of `value` for the row named by `context`, written `mac:v1:<key id>:<HMAC-SHA256>`:
   * what a secret is compared against without opening its sealed copy (one HMAC per comparison). The
   * HMAC key is derived from the encryption key, never the key itself.
   */
  digest(value: string, context: string): string {
    return `mac:v1:${this.primaryId}:${this.mac(this.primaryId, value, context)}`;
  }

  /** Whether `value` is the one `digest` was made of, for the same row; false for a key no longer listed. */
  digestMatches(digest: string, value: string, context: string): boolean {
    const at = digest.lastIndexOf(":");
    if (!digest.startsWith("mac:v1:") || at <= 7) return false;
    const id = digest.slice(7, at);
    if (!this.keys.has(id)) return false;
    // A plain comparison: the caller picks the HMAC's input, never its output, so how long the
    // comparison takes tells nothing about the secret (and this runs on every notification).
    return digest.slice(at + 1) === this.mac(id, value, context);
  }

  /** Whether a digest was made with a key other than the current one (`junction rekey` remakes it). */
  isStaleDigest(digest: string): boolean {
    return digest.split(":")[2] !== this.primaryId;
  }

  private mac(keyId: string, value: string, context: string): string {
    let key = this.macKeys.get(keyId);
    if (key === undefined) {
      key = createHmac("sha256", this.keys.get(keyId) as Buffer)
        .update("junction:digest-key:v1")
        .digest();
      this.macKeys.set(keyId, key);
    }
    // Bun's hasher: the same HMAC as node:crypto's, in less time (it is on every notification's check).
    return new Bun.CryptoHasher("sha256", key).update(`${context}\n${value}`).digest("base64url");
  }

  /** Opens a value and seals it again under the current key for `context` (rekey, renames). */
  reseal(envelope: string, fromContext: string, toContext: string = fromContext): string {
    return this.encrypt(this.decrypt(envelope, fromContext), toContext);
  }
}

function associatedData(keyId: string, context: string): Buffer {
  return Buffer.from(`junction:enc:v2:${keyId}:${context}`, "utf8");
}

/** The shortest secret key accepted: shorter ones could be guessed. */
export const SECRET_KEY_MIN_LENGTH = 16;

function decodeKey(text: string): Buffer {
  const buf = Buffer.from(text.trim().replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (buf.length !== 32)
    throw new Error("an encryption key must be 32 bytes, base64-encoded (openssl rand -base64 32)");
  return buf;
}

function hashId(key: Buffer): string {
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
