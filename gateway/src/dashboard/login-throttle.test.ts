import { describe, expect, test } from "bun:test";
import { LoginThrottle } from "./login-throttle.ts";

describe("LoginThrottle", () => {
  test("ten failures from one address stop it for six seconds, then one try each six seconds", () => {
    let now = 0;
    const throttle = new LoginThrottle(() => now);
    for (let i = 0; i < 10; i++) {
      expect(throttle.retryAfterSeconds("10.0.0.1", `guess-${i}`)).toBe(0);
      throttle.failed("10.0.0.1", `guess-${i}`);
    }
    expect(throttle.retryAfterSeconds("10.0.0.1", "guess-10")).toBe(6);
    // Another address is not held back by this one's failures.
    expect(throttle.retryAfterSeconds("10.0.0.2", "guess-10")).toBe(0);
    now += 6000;
    expect(throttle.retryAfterSeconds("10.0.0.1", "guess-10")).toBe(0);
    throttle.failed("10.0.0.1", "guess-10");
    expect(throttle.retryAfterSeconds("10.0.0.1", "guess-11")).toBe(6);
  });

  test("one key tried from many addresses is stopped after five failures, for a minute", () => {
    let now = 0;
    const throttle = new LoginThrottle(() => now);
    for (let i = 0; i < 5; i++) throttle.failed(`10.0.1.${i}`, "jct_sk_someone");
    expect(throttle.retryAfterSeconds("10.0.2.1", "jct_sk_someone")).toBe(60);
    expect(throttle.retryAfterSeconds("10.0.2.1", "jct_sk_other")).toBe(0);
    now += 60_000;
    expect(throttle.retryAfterSeconds("10.0.2.1", "jct_sk_someone")).toBe(0);
  });
});
