import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { DecryptionError, Encryptor } from "@junction/platform";
import { ChannelTokens } from "./channel-tokens.ts";

const ENV = "env_1";

describe("ChannelTokens", () => {
  test("seals a token to its channel: no plaintext stored, the digest checks it, the seal opens only there", () => {
    const tokens = new ChannelTokens(new Encryptor(randomBytes(32)));
    const sealed = tokens.seal(ENV, "ch-1", "client-state-secret");
    const row = { environmentId: ENV, id: "ch-1", ...sealed };
    expect(JSON.stringify(row)).not.toContain("client-state-secret");
    expect(tokens.matches(row, "client-state-secret")).toBe(true);
    expect(tokens.matches(row, "client-state-secreT")).toBe(false);
    expect(tokens.matches(row, "")).toBe(false);
    expect(tokens.open(row)).toBe("client-state-secret");
    // Copied into another channel's row, neither the seal nor the digest holds.
    const moved = { ...row, id: "ch-2" };
    expect(tokens.matches(moved, "client-state-secret")).toBe(false);
    expect(() => tokens.open(moved)).toThrow(DecryptionError);
  });

  test("a channel without a token takes any; a row stored as given is read as given until sealed", () => {
    const tokens = new ChannelTokens(new Encryptor(randomBytes(32)));
    const none = { environmentId: ENV, id: "ch-1", ...tokens.seal(ENV, "ch-1", "") };
    expect(none).toMatchObject({ token: null, tokenDigest: null });
    expect(tokens.matches(none, "anything")).toBe(true);
    const given = { environmentId: ENV, id: "ch-1", token: "as-given", tokenDigest: null };
    expect(tokens.matches(given, "as-given")).toBe(true);
    expect(tokens.matches(given, "other")).toBe(false);
    const resealed = tokens.resealed(given);
    expect(resealed?.token).toStartWith("enc:v2:");
    expect(tokens.open({ ...given, ...resealed })).toBe("as-given");
    expect(tokens.resealed({ ...given, ...resealed })).toBeNull();
  });

  test("after a key rotation old seals and digests still check until resealed under the new key", () => {
    const oldKey = { id: "old", key: randomBytes(32) };
    const newKey = { id: "new", key: randomBytes(32) };
    const before = new ChannelTokens(new Encryptor(oldKey));
    const row = { environmentId: ENV, id: "ch-1", ...before.seal(ENV, "ch-1", "t0ken") };
    const after = new ChannelTokens(new Encryptor(newKey, [oldKey]));
    expect(after.matches(row, "t0ken")).toBe(true);
    const resealed = after.resealed(row);
    expect(resealed?.token).toStartWith("enc:v2:new:");
    expect(resealed?.tokenDigest).toStartWith("mac:v1:new:");
    const newOnly = new ChannelTokens(new Encryptor(newKey));
    expect(newOnly.matches({ ...row, ...resealed }, "t0ken")).toBe(true);
    expect(newOnly.matches(row, "t0ken")).toBe(false);
  });

  test("checking a token costs one HMAC, never a decryption", () => {
    let opened = 0;
    class Counting extends Encryptor {
      override decrypt(envelope: string, context: string): string {
        opened++;
        return super.decrypt(envelope, context);
      }
    }
    const tokens = new ChannelTokens(new Counting(randomBytes(32)));
    const row = { environmentId: ENV, id: "ch-1", ...tokens.seal(ENV, "ch-1", "x".repeat(64)) };
    const n = 20_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) tokens.matches(row, "x".repeat(64));
    const check = (performance.now() - started) / n;
    expect(opened).toBe(0);
    // For docs/benchmarks.md: the cost per notification of checking its token.
    console.log(`channel token check: ${(check * 1000).toFixed(2)} us`);
  });
});
