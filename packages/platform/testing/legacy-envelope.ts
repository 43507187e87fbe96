import { createCipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Seals `plaintext` the way Junction did before secrets were bound to their rows (`enc:v1:`, no associated data, the key named
 * by a hash of it): for tests that check such data still opens and is migrated by `junction rekey`.
 */
export function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  const id = createHash("sha256").update(key).digest("hex").slice(0, 8);
  return `enc:v1:${id}:${iv.toString("base64url")}:${ct.toString("base64url")}`;
}
