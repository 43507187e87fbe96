import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { generateSigningSecret, signatureHeaders, signNango, signStandard, verifyStandard } from "./signing.ts";

// The published Standard Webhooks test vector.
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  msgId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("signStandard", () => {
  test("produces the Standard Webhooks test vector's signature", () => {
    expect(signStandard(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  test("signs the body's bytes the same whether given as a string or as bytes", () => {
    const bytes = new TextEncoder().encode(VECTOR.body);
    expect(signStandard(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, bytes)).toBe(VECTOR.signature);
  });

  test("signs bytes that are not UTF-8 exactly as they are", () => {
    const body = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const expected = createHmac("sha256", Buffer.from(VECTOR.secret.slice(6), "base64"))
      .update(Buffer.concat([Buffer.from(`${VECTOR.msgId}.${VECTOR.timestamp}.`), body]))
      .digest("base64");
    expect(signStandard(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, body)).toBe(`v1,${expected}`);
  });
});

describe("generateSigningSecret", () => {
  test("makes whsec_ secrets of 32 random bytes, different every time", () => {
    const a = generateSigningSecret();
    const b = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe("signNango", () => {
  test("is the hex HMAC-SHA256 of the body keyed with the whole secret string", () => {
    const expected = createHmac("sha256", VECTOR.secret).update(VECTOR.body).digest("hex");
    expect(signNango(VECTOR.secret, VECTOR.body)).toBe(expected);
    expect(signNango(VECTOR.secret, new TextEncoder().encode(VECTOR.body))).toBe(expected);
  });
});

describe("signatureHeaders", () => {
  test("carries one v1 signature per secret, current first, and the Nango header with the current one", () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const h = signatureHeaders([current, previous], "msg_1", 1_700_000_000, '{"a":1}');
    expect(h["webhook-id"]).toBe("msg_1");
    expect(h["webhook-timestamp"]).toBe("1700000000");
    expect(h["webhook-signature"]).toBe(
      `${signStandard(current, "msg_1", 1_700_000_000, '{"a":1}')} ${signStandard(previous, "msg_1", 1_700_000_000, '{"a":1}')}`,
    );
    expect(h["x-nango-hmac-sha256"]).toBe(signNango(current, '{"a":1}'));
  });

  test("refuses to sign without a secret", () => {
    expect(() => signatureHeaders([], "msg_1", 1, "")).toThrow();
  });
});

describe("verifyStandard", () => {
  const now = 1_700_000_000;
  const current = generateSigningSecret();
  const previous = generateSigningSecret();
  const body = '{"type":"forward"}';
  const headers = signatureHeaders([current, previous], "msg_2", now, body);

  test("accepts the test vector", () => {
    const h = {
      "webhook-id": VECTOR.msgId,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": VECTOR.signature,
    };
    expect(verifyStandard(VECTOR.secret, h, VECTOR.body, 300, VECTOR.timestamp + 10)).toEqual({ valid: true });
  });

  test("accepts a message signed with either secret during a rotation", () => {
    expect(verifyStandard(current, { ...headers }, body, 300, now)).toEqual({ valid: true });
    expect(verifyStandard(previous, new Headers({ ...headers }), body, 300, now)).toEqual({ valid: true });
  });

  test("reads header names case-insensitively", () => {
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyStandard(current, upper, body, 300, now)).toEqual({ valid: true });
  });

  test("rejects a changed body, another secret, or a changed id", () => {
    expect(verifyStandard(current, { ...headers }, `${body} `, 300, now)).toEqual({
      valid: false,
      reason: "no_matching_signature",
    });
    expect(verifyStandard(generateSigningSecret(), { ...headers }, body, 300, now)).toEqual({
      valid: false,
      reason: "no_matching_signature",
    });
    expect(verifyStandard(current, { ...headers, "webhook-id": "msg_3" }, body, 300, now)).toEqual({
      valid: false,
      reason: "no_matching_signature",
    });
  });

  test("rejects a timestamp outside the tolerance, either way", () => {
    expect(verifyStandard(current, { ...headers }, body, 300, now + 300)).toEqual({ valid: true });
    expect(verifyStandard(current, { ...headers }, body, 300, now + 301)).toEqual({
      valid: false,
      reason: "timestamp_out_of_tolerance",
    });
    expect(verifyStandard(current, { ...headers }, body, 300, now - 301)).toEqual({
      valid: false,
      reason: "timestamp_out_of_tolerance",
    });
  });

  test("rejects missing headers and a timestamp that is not a number", () => {
    expect(verifyStandard(current, { "webhook-id": "msg_2" }, body, 300, now)).toEqual({
      valid: false,
      reason: "missing_headers",
    });
    expect(verifyStandard(current, { ...headers, "webhook-timestamp": "1e9" }, body, 300, now)).toEqual({
      valid: false,
      reason: "invalid_timestamp",
    });
  });
});
