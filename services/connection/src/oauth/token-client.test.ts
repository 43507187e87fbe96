import { describe, expect, test } from "bun:test";
import { parseProviderDefinition } from "@junction/providers";
import type { HttpFetch } from "../context.ts";
import { describeTokenFailure, isTransient, requestToken, type TokenRequestDefinition } from "./token-client.ts";

/** A token endpoint answering `res` (a local fetch: the request and the parsing are what is tested here). */
const answering = (res: () => Response) => async () => res();

const definition = (extra: Record<string, unknown> = {}): TokenRequestDefinition =>
  parseProviderDefinition({
    name: "acme",
    displayName: "Acme",
    authMode: "OAUTH2",
    baseUrl: "https://api.acme.test",
    authorizationUrl: "https://acme.test/authorize",
    tokenUrl: "https://acme.test/token",
    ...extra,
  });

const ask = (fetchImpl: HttpFetch, extra?: Record<string, unknown>, params: Record<string, string> = {}, ms = 1000) =>
  requestToken(
    fetchImpl,
    { tokenUrl: "http://x/token", params, clientId: "id", clientSecret: "s&x", definition: definition(extra) },
    ms,
  );

describe("requestToken", () => {
  test("parses a token response; expires_in and refresh_token are optional", async () => {
    const ok = await ask(
      answering(() => Response.json({ access_token: "at", expires_in: 3599, refresh_token: "rt", scope: "email" })),
    );
    expect(ok).toMatchObject({
      ok: true,
      token: { accessToken: "at", refreshToken: "rt", expiresIn: 3599, scope: "email" },
    });
    const bare = await ask(answering(() => Response.json({ access_token: "at" })));
    expect(bare.ok && bare.token.expiresIn).toBeUndefined();
    expect(bare.ok && bare.token.refreshToken).toBeUndefined();
  });

  test("an OAuth error is a refusal; HTML, JSON without a token and network errors are not", async () => {
    const refused = await ask(
      answering(() => Response.json({ error: "invalid_grant", error_description: "Bad Request" }, { status: 400 })),
    );
    expect(refused).toEqual({
      ok: false,
      failure: { kind: "refused", status: 400, error: "invalid_grant", description: "Bad Request" },
    });
    expect(!refused.ok && isTransient(refused.failure)).toBe(false);

    const html = await ask(
      answering(() => new Response("<h1>502</h1>", { status: 502, headers: { "content-type": "text/html" } })),
    );
    expect(html).toEqual({
      ok: false,
      failure: { kind: "invalid_response", status: 502, detail: "an HTML page, not a token answer" },
    });
    expect(!html.ok && isTransient(html.failure)).toBe(true);

    const noToken = await ask(answering(() => Response.json({ token: "x" })));
    expect(noToken).toEqual({
      ok: false,
      failure: { kind: "invalid_response", status: 200, detail: "the answer has no access_token" },
    });

    const down = await ask(async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    });
    expect(down).toEqual({ ok: false, failure: { kind: "unreachable", detail: "ECONNREFUSED" } });
  });

  test("an error answered with 200 and no token is a refusal", async () => {
    const res = await ask(answering(() => Response.json({ ok: false, error: "invalid_code" })));
    expect(res).toEqual({
      ok: false,
      failure: { kind: "refused", status: 200, error: "invalid_code", description: "" },
    });
  });

  test("a token type the definition does not accept is refused, naming it", async () => {
    const mac = await ask(answering(() => Response.json({ access_token: "at", token_type: "mac" })));
    expect(!mac.ok && mac.failure).toEqual({
      kind: "invalid_response",
      status: 200,
      detail: 'the token_type is "mac", not "bearer" as the provider\'s definition expects',
    });
    const bearer = await ask(answering(() => Response.json({ access_token: "at", token_type: "Bearer" })));
    expect(bearer.ok).toBe(true);
  });

  test("reads form-encoded answers and tokens nested under the definition's root", async () => {
    const form = await ask(
      answering(
        () =>
          new Response("access_token=at&refresh_token=rt&expires_in=60", {
            headers: { "content-type": "application/x-www-form-urlencoded" },
          }),
      ),
      { tokenResponse: { format: "form" } },
    );
    expect(form).toMatchObject({ ok: true, token: { accessToken: "at", refreshToken: "rt", expiresIn: 60 } });

    const nested = await ask(
      answering(() =>
        Response.json({ ok: true, access_token: "bot", token_type: "bot", authed_user: { access_token: "user" } }),
      ),
      { tokenResponse: { root: "authed_user", tokenTypes: ["user"] } },
    );
    expect(nested).toMatchObject({ ok: true, token: { accessToken: "user" } });
    const missing = await ask(
      answering(() => Response.json({ access_token: "bot" })),
      {
        tokenResponse: { root: "authed_user" },
      },
    );
    expect(!missing.ok && missing.failure).toMatchObject({ detail: 'the answer has no "authed_user" object' });
  });

  test("gives up after the timeout", async () => {
    const hang = (_: string | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const res = await ask(hang, {}, {}, 50);
    expect(res).toEqual({ ok: false, failure: { kind: "timeout", timeoutMs: 50 } });
    expect(!res.ok && describeTokenFailure(res.failure)).toBe("the token endpoint did not answer within 50 ms");
  });

  test("sends the parameters form-encoded, never in the URL, the client as the definition says", async () => {
    const seen: { url: string; body: string; type: string | null; auth: string | null }[] = [];
    const record: HttpFetch = async (url, init) => {
      const headers = new Headers(init?.headers);
      seen.push({
        url: String(url),
        body: String(init?.body),
        type: headers.get("content-type"),
        auth: headers.get("authorization"),
      });
      return Response.json({ access_token: "at" });
    };
    const params = { grant_type: "refresh_token", refresh_token: "r t" };
    await ask(record, { tokenParams: { audience: "api" } }, params);
    await ask(record, { clientAuthentication: "client_secret_basic" }, params);
    expect(seen).toEqual([
      {
        url: "http://x/token",
        body: "audience=api&grant_type=refresh_token&refresh_token=r+t&client_id=id&client_secret=s%26x",
        type: "application/x-www-form-urlencoded",
        auth: null,
      },
      {
        url: "http://x/token",
        body: "grant_type=refresh_token&refresh_token=r+t",
        type: "application/x-www-form-urlencoded",
        auth: `Basic ${btoa("id:s%26x")}`,
      },
    ]);
  });
});
