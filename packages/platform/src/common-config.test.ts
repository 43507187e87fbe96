import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { encryptorFromConfig, loadCommonConfig } from "./common-config.ts";

const goodKey = randomBytes(32).toString("base64");
const shortKey = randomBytes(16).toString("base64");
const oldKey = randomBytes(32).toString("base64");

describe("the encryption key's settings", () => {
  test("a key of the wrong length names JUNCTION_ENCRYPTION_KEY and the length it must have", () => {
    const cfg = loadCommonConfig({ JUNCTION_ENCRYPTION_KEY: shortKey });
    const build = () => encryptorFromConfig(cfg, { embedded: false });
    expect(build).toThrow("JUNCTION_ENCRYPTION_KEY: an encryption key must be 32 bytes");
    expect(build).not.toThrow(shortKey);
  });

  test("a previous key of the wrong length names JUNCTION_ENCRYPTION_KEYS_PREVIOUS", () => {
    const cfg = loadCommonConfig({ JUNCTION_ENCRYPTION_KEY: goodKey, JUNCTION_ENCRYPTION_KEYS_PREVIOUS: shortKey });
    expect(() => encryptorFromConfig(cfg, { embedded: false })).toThrow("JUNCTION_ENCRYPTION_KEYS_PREVIOUS: ");
  });

  test("good keys build an encryptor that reads what it wrote", () => {
    const cfg = loadCommonConfig({ JUNCTION_ENCRYPTION_KEY: goodKey, JUNCTION_ENCRYPTION_KEYS_PREVIOUS: oldKey });
    const enc = encryptorFromConfig(cfg, { embedded: false });
    expect(enc.decrypt(enc.encrypt("secret", "row"), "row")).toBe("secret");
  });
});
