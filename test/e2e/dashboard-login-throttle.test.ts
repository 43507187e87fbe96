import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

let j: TestJunction;
const clock = new ManualClock();

beforeAll(async () => {
  j = await startTestJunction({ clock });
});
afterAll(async () => {
  await j.close();
});

const login = (secret_key: string) =>
  fetch(`${j.url}/dashboard/login`, { method: "POST", body: new URLSearchParams({ secret_key }), redirect: "manual" });

describe("dashboard login throttle", () => {
  test("after ten wrong keys from one address: 429 with Retry-After and a clear message, the right key too, until the wait is over", async () => {
    for (let i = 0; i < 10; i++) expect((await login(`jct_sk_guess_${i}`)).status).toBe(401);
    const refused = await login("jct_sk_guess_10");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("6");
    expect(await refused.text()).toContain("Too many failed logins from here. Try again in 6 seconds.");
    // While throttled, a right guess is not told apart from a wrong one.
    const right = await login(TEST_SECRET_KEY);
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();
    await clock.advance(6000);
    const after = await login(TEST_SECRET_KEY);
    expect(after.status).toBe(303);
    expect(after.headers.get("set-cookie")).toContain("junction_dashboard=");
  });

  test("no tried key reaches the logs", async () => {
    expect(j.logLines.join("\n")).not.toContain("jct_sk_guess_");
  });
});
