import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { constantTimeEqual, DecryptionError, Encryptor, secretContext } from "./crypto.ts";
import { legacySeal } from "../testing/legacy-envelope.ts";

const key = () => randomBytes(32).toString("base64");
const ROW = secretContext("connection-credentials", "env_1", "google", "alice");
const OTHER = secretContext("connection-credentials", "env_1", "google", "bob");

describe("Encryptor", () => {
  test("round-trips and never shows the plaintext in the envelope", () => {
    const enc = Encryptor.fromBase64(key());
    const sealed = enc.encrypt("ya29.secret-token", ROW);
    expect(sealed.startsWith(`enc:v2:${enc.currentKeyId}:`)).toBe(true);
    expect(sealed).not.toContain("secret-token");
    expect(enc.decrypt(sealed, ROW)).toBe("ya29.secret-token");
    expect(enc.encrypt("same", ROW)).not.toBe(enc.encrypt("same", ROW));
  });

  test("a ciphertext sealed for one row does not open for another, with a clear error and no plaintext", () => {
    const enc = Encryptor.fromBase64(key());
    const sealed = enc.encrypt("ya29.alice-token", ROW);
    let caught: unknown;
    try {
      enc.decrypt(sealed, OTHER);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DecryptionError);
    expect((caught as DecryptionError).code).toBe("stored_secret_unreadable");
    expect((caught as Error).message).toMatch(/sealed for another record, or altered/);
    expect((caught as Error).message).not.toContain("alice-token");
  });

  test("the key id is bound too: an envelope relabelled with another key's id does not open", () => {
    const a = { id: "a", key: randomBytes(32) };
    const sealed = new Encryptor(a).encrypt("x", ROW);
    // The same key under two ids: only the id it was sealed under opens it.
    const twin = new Encryptor({ id: "b", key: a.key }, [a]);
    expect(() => twin.decrypt(sealed.replace(":a:", ":b:"), ROW)).toThrow(DecryptionError);
    expect(twin.decrypt(sealed, ROW)).toBe("x");
  });

  test("reads values sealed with a previous key after rotation, and flags them stale", () => {
    const oldKey = key();
    const old = Encryptor.fromBase64(oldKey);
    const sealed = old.encrypt("before rotation", ROW);
    const rotated = Encryptor.fromBase64(key(), [oldKey]);
    expect(rotated.decrypt(sealed, ROW)).toBe("before rotation");
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.encrypt("x", ROW))).toBe(false);
  });

  test("reads the unbound enc:v1 format (no associated data), flags it stale and reseals it bound", () => {
    const k = key();
    const enc = new Encryptor({ id: "k1", key: Buffer.from(k, "base64") });
    const legacy = legacySeal(Buffer.from(k, "base64"), "old secret");
    expect(enc.decrypt(legacy, ROW)).toBe("old secret");
    expect(enc.isStale(legacy)).toBe(true);
    const resealed = enc.reseal(legacy, ROW);
    expect(resealed.startsWith("enc:v2:k1:")).toBe(true);
    expect(enc.isStale(resealed)).toBe(false);
    expect(() => enc.decrypt(resealed, OTHER)).toThrow(DecryptionError);
  });

  test("with unbound values refused, an old-format value opens nowhere (an old copy after rekey)", () => {
    const k = Buffer.from(key(), "base64");
    const strict = new Encryptor({ id: "k1", key: k }, [], { acceptUnbound: false });
    expect(() => strict.decrypt(legacySeal(k, "from a backup"), ROW)).toThrow(/enc:v1\), refused/);
    expect(strict.decrypt(strict.encrypt("bound", ROW), ROW)).toBe("bound");
  });

  test("parses id:base64 key lists, the first current, and refuses bad ids and repeats", () => {
    const [k1, k2] = [key(), key()];
    const keys = Encryptor.parseKeyList(` new:${k1} , old:${k2} `);
    expect(keys.map((k) => k.id)).toEqual(["new", "old"]);
    const enc = new Encryptor(keys[0] as (typeof keys)[0], keys.slice(1));
    expect(enc.currentKeyId).toBe("new");
    expect(() => new Encryptor({ id: "bad id", key: randomBytes(32) })).toThrow(/must be 1-32/);
    const dup = { id: "same", key: randomBytes(32) };
    expect(() => new Encryptor(dup, [dup])).toThrow(/listed twice/);
  });

  test("refuses tampered ciphertext and unknown keys", () => {
    const enc = Encryptor.fromBase64(key());
    const sealed = enc.encrypt("payload", ROW);
    const parts = sealed.split(":");
    const data = Buffer.from(parts[4] as string, "base64url");
    data[0] = (data[0] as number) ^ 1;
    parts[4] = data.toString("base64url");
    expect(() => enc.decrypt(parts.join(":"), ROW)).toThrow(DecryptionError);
    expect(() => Encryptor.fromBase64(key()).decrypt(sealed, ROW)).toThrow(/no key/);
    expect(() => enc.decrypt("plain text", ROW)).toThrow(/not an encrypted value/);
  });

  test("refuses keys that are not 32 bytes", () => {
    expect(() => Encryptor.fromBase64(Buffer.from("short").toString("base64"))).toThrow(/32 bytes/);
  });

  test("compares strings in constant time, including different lengths", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
  });
});
