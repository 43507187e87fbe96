import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { constantTimeEqual, Encryptor } from "./crypto.ts";

const key = () => randomBytes(32).toString("base64");

describe("Encryptor", () => {
  test("round-trips and never shows the plaintext in the envelope", () => {
    const enc = Encryptor.fromBase64(key());
    const sealed = enc.encrypt("ya29.secret-token");
    expect(sealed.startsWith("enc:v1:")).toBe(true);
    expect(sealed).not.toContain("secret-token");
    expect(enc.decrypt(sealed)).toBe("ya29.secret-token");
    expect(enc.encrypt("same")).not.toBe(enc.encrypt("same"));
  });

  test("reads values sealed with a previous key after rotation, and flags them stale", () => {
    const oldKey = key();
    const old = Encryptor.fromBase64(oldKey);
    const sealed = old.encrypt("before rotation");
    const rotated = Encryptor.fromBase64(key(), [oldKey]);
    expect(rotated.decrypt(sealed)).toBe("before rotation");
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.encrypt("x"))).toBe(false);
  });

  test("refuses tampered ciphertext and unknown keys", () => {
    const enc = Encryptor.fromBase64(key());
    const sealed = enc.encrypt("payload");
    const parts = sealed.split(":");
    const data = Buffer.from(parts[4] as string, "base64url");
    data[0] = (data[0] as number) ^ 1;
    parts[4] = data.toString("base64url");
    expect(() => enc.decrypt(parts.join(":"))).toThrow();
    expect(() => Encryptor.fromBase64(key()).decrypt(sealed)).toThrow(/no key/);
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
