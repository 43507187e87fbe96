import { describe, expect, test } from "bun:test";
import { readCookie, sameOrigin, sessionCookie } from "./dashboard-auth.ts";

const at = (url: string, baseUrl: string) => ({ url: new URL(url), baseUrl });

describe("dashboard cookie and origin rules", () => {
  test("the session cookie is HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure over https", () => {
    const plain = sessionCookie(at("http://127.0.0.1:3003/dashboard/login", "http://localhost:3003"), "v", 3_600_000);
    expect(plain).toBe("junction_dashboard=v; Path=/dashboard; Max-Age=3600; HttpOnly; SameSite=Strict");
    // Behind a TLS-terminating proxy the request is http but the base URL says https.
    expect(sessionCookie(at("http://10.0.0.5/dashboard/login", "https://junction.example"), "v", 1000)).toEndWith(
      "; Secure",
    );
    expect(sessionCookie(at("https://junction.example/dashboard/login", "https://junction.example"), "", 0)).toContain(
      "Max-Age=0",
    );
  });

  test("reads one cookie among several", () => {
    const req = new Request("http://x/", { headers: { cookie: "a=1; junction_dashboard=v1.p.s; b=2" } });
    expect(readCookie(req, "junction_dashboard")).toBe("v1.p.s");
    expect(readCookie(req, "missing")).toBeUndefined();
    expect(readCookie(new Request("http://x/"), "junction_dashboard")).toBeUndefined();
  });

  test("a write's Origin must be the gateway's own (request or base URL); none is accepted", () => {
    const req = (origin?: string) =>
      new Request("http://127.0.0.1:3003/dashboard/api/x", { headers: origin ? { origin } : {} });
    const ctx = (origin?: string) => ({ req: req(origin), ...at("http://127.0.0.1:3003/x", "http://localhost:3003") });
    expect(sameOrigin(ctx())).toBe(true);
    expect(sameOrigin(ctx("http://127.0.0.1:3003"))).toBe(true);
    expect(sameOrigin(ctx("http://localhost:3003"))).toBe(true);
    expect(sameOrigin(ctx("https://evil.example"))).toBe(false);
    expect(sameOrigin(ctx("null"))).toBe(false);
  });
});
