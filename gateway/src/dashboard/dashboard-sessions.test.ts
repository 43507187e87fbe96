import { describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { DashboardSessions } from "./dashboard-sessions.ts";

const setup = (ttlMs = 60_000) => {
  const clock = new ManualClock();
  return { clock, sessions: new DashboardSessions({ ttlMs, now: () => clock.now() }) };
};

describe("DashboardSessions", () => {
  test("a cookie it issued verifies, with who logged in and until when", () => {
    const { clock, sessions } = setup();
    const { cookieValue, session } = sessions.issue("env_1", "sk_1");
    expect(sessions.verify(cookieValue)).toEqual(session);
    expect(session).toMatchObject({ environmentId: "env_1", keyId: "sk_1", expiresAtMs: clock.now() + 60_000 });
  });

  test("a cookie expires with its session", () => {
    const { clock, sessions } = setup();
    const { cookieValue } = sessions.issue("env_1", "sk_1");
    clock.advance(59_999);
    expect(sessions.verify(cookieValue)).not.toBeNull();
    clock.advance(1);
    expect(sessions.verify(cookieValue)).toBeNull();
  });

  test("a changed payload, a changed signature or another gateway's cookie does not verify", () => {
    const { sessions } = setup();
    const { cookieValue } = sessions.issue("env_1", "sk_1");
    const [v, payload, sig] = cookieValue.split(".") as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ e: "env_1", k: "sk_1", x: Date.now() * 2, n: "n" })).toString(
      "base64url",
    );
    expect(sessions.verify(`${v}.${forged}.${sig}`)).toBeNull();
    expect(sessions.verify(`${v}.${payload}.${sig.slice(1)}A`)).toBeNull();
    expect(sessions.verify(`v2.${payload}.${sig}`)).toBeNull();
    expect(sessions.verify(new DashboardSessions().issue("env_1", "sk_1").cookieValue)).toBeNull();
    for (const junk of [undefined, "", "v1", "v1.a.b.c", "x".repeat(2000), "v1.%%%.abc"]) {
      expect(sessions.verify(junk)).toBeNull();
    }
  });

  test("the same signing key verifies across instances (several gateways can share one)", () => {
    const key = new Uint8Array(32).fill(7);
    const a = new DashboardSessions({ signingKey: key });
    const b = new DashboardSessions({ signingKey: key });
    expect(b.verify(a.issue("env_1", "sk_1").cookieValue)).not.toBeNull();
  });

  test("the CSRF token belongs to one session and is not the cookie", () => {
    const { sessions } = setup();
    const one = sessions.issue("env_1", "sk_1");
    const two = sessions.issue("env_1", "sk_1");
    const token = sessions.csrfToken(one.session);
    expect(sessions.checkCsrf(one.session, token)).toBe(true);
    expect(sessions.checkCsrf(two.session, token)).toBe(false);
    expect(sessions.checkCsrf(one.session, null)).toBe(false);
    expect(one.cookieValue).not.toContain(token);
  });

  test("logging out ends that session only", () => {
    const { sessions } = setup();
    const one = sessions.issue("env_1", "sk_1");
    const two = sessions.issue("env_1", "sk_1");
    sessions.logOut(one.session);
    expect(sessions.verify(one.cookieValue)).toBeNull();
    expect(sessions.verify(two.cookieValue)).not.toBeNull();
  });
});
