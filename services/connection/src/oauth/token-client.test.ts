import { describe, expect, test } from "bun:test";
import { describeTokenFailure, isTransient, requestToken } from "./token-client.ts";

/** A token endpoint answering `res` (a local fetch: the parsing is what is tested here). */
const answering = (res: () => Response) => async () => res();

describe("requestToken", () => {
  test("parses a token response; expires_in and refresh_token are optional", async () => {
    const ok = await requestToken(
      answering(() => Response.json({ access_token: "at", expires_in: 3599, refresh_token: "rt", scope: "email" })),
      "http://x/token",
      {},
      1000,
    );
    expect(ok).toMatchObject({
      ok: true,
      token: { accessToken: "at", refreshToken: "rt", expiresIn: 3599, scope: "email" },
    });
    const bare = await requestToken(
      answering(() => Response.json({ access_token: "at" })),
      "http://x/token",
      {},
      1000,
    );
    expect(bare.ok && bare.token.expiresIn).toBeUndefined();
    expect(bare.ok && bare.token.refreshToken).toBeUndefined();
  });

  test("an OAuth error is a refusal; HTML, JSON without a token and network errors are not", async () => {
    const refused = await requestToken(
      answering(() => Response.json({ error: "invalid_grant", error_description: "Bad Request" }, { status: 400 })),
      "http://x/token",
      {},
      1000,
    );
    expect(refused).toEqual({
      ok: false,
      failure: { kind: "refused", status: 400, error: "invalid_grant", description: "Bad Request" },
    });
    expect(!refused.ok && isTransient(refused.failure)).toBe(false);

    const html = await requestToken(
      answering(() => new Response("<h1>502</h1>", { status: 502, headers: { "content-type": "text/html" } })),
      "http://x/token",
      {},
      1000,
    );
    expect(html).toEqual({
      ok: false,
      failure: { kind: "invalid_response", status: 502, detail: "text/html, not JSON" },
    });
    expect(!html.ok && isTransient(html.failure)).toBe(true);

    const noToken = await requestToken(
      answering(() => Response.json({ token: "x" })),
      "http://x/token",
      {},
      1000,
    );
    expect(!noToken.ok && noToken.failure.kind).toBe("invalid_response");

    const down = await requestToken(
      async () => {
        throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      },
      "http://x/token",
      {},
      1000,
    );
    expect(down).toEqual({ ok: false, failure: { kind: "unreachable", detail: "ECONNREFUSED" } });
  });

  test("gives up after the timeout", async () => {
    const hang = (_: string | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const res = await requestToken(hang, "http://x/token", {}, 50);
    expect(res).toEqual({ ok: false, failure: { kind: "timeout", timeoutMs: 50 } });
    expect(!res.ok && describeTokenFailure(res.failure)).toBe("the token endpoint did not answer within 50 ms");
  });

  test("sends the parameters form-encoded, never in the URL", async () => {
    let seen: { url: string; body: string; type: string | null } | undefined;
    await requestToken(
      async (url, init) => {
        seen = {
          url: String(url),
          body: String(init?.body),
          type: new Headers(init?.headers).get("content-type"),
        };
        return Response.json({ access_token: "at" });
      },
      "http://x/token",
      { grant_type: "refresh_token", refresh_token: "r t", client_secret: "s&x" },
      1000,
    );
    expect(seen).toEqual({
      url: "http://x/token",
      body: "grant_type=refresh_token&refresh_token=r+t&client_secret=s%26x",
      type: "application/x-www-form-urlencoded",
    });
  });
});
