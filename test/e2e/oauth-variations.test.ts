import { describe, expect, test } from "bun:test";
import { connectedId, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

describe("OAuth 2.0 variations driven by the provider's definition", () => {
  test("client_secret_basic: the client authenticates with a Basic header, on the exchange and the refresh", async () => {
    const w = await world({
      behaviour: { clientAuthentication: "client_secret_basic" },
      definition: () => ({ clientAuthentication: "client_secret_basic" }),
    });
    const id = await connectedId(w);
    await w.clock.advance(3600_000);
    await w.credentials(id);
    expect(w.auth.tokenRequests.map((r) => [r.grantType, r.clientAuthenticatedBy])).toEqual([
      ["authorization_code", "basic"],
      ["refresh_token", "basic"],
    ]);
    expect(w.auth.tokenRequests.every((r) => r.params.client_id === undefined)).toBe(true);
  });

  test("client_secret_post against a server that wants Basic is refused as invalid_client", async () => {
    const w = await world({ behaviour: { clientAuthentication: "client_secret_basic" } });
    const result = await w.connect();
    expect(result.status).toBe(400);
    expect(result.code).toBe("token_exchange_refused");
    expect(result.html).toContain("invalid_client");
    expect(await w.connectionIds()).toEqual([]);
  });
});

describe("PKCE as the definition says", () => {
  test("required: the S256 challenge is sent and the verifier checked", async () => {
    const w = await world({ behaviour: { pkce: "required" }, definition: () => ({ pkce: "required" }) });
    await connectedId(w);
    expect(w.auth.authorizations[0]?.params.code_challenge_method).toBe("S256");
    expect(w.auth.authorizations[0]?.params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("refused: neither challenge nor verifier is sent", async () => {
    const w = await world({ behaviour: { pkce: "refused" }, definition: () => ({ pkce: "refused" }) });
    await connectedId(w);
    expect(w.auth.authorizations[0]?.params.code_challenge).toBeUndefined();
    expect(w.auth.tokenRequests[0]?.params.code_verifier).toBeUndefined();
  });

  test("a provider that refuses PKCE, defined as optional, refuses the authorization; nothing is saved", async () => {
    const w = await world({ behaviour: { pkce: "refused" } });
    const result = await w.connect();
    expect(result.code).toBe("upstream_error");
    expect(result.html).toContain("PKCE is not supported");
    expect(await w.connectionIds()).toEqual([]);
  });
});

describe("scopes and extra parameters", () => {
  for (const [separator, char] of [
    ["comma", ","],
    ["plus", "+"],
  ] as const) {
    test(`scopes joined with the ${separator} separator`, async () => {
      const w = await world({ behaviour: { scopeSeparator: char }, definition: () => ({ scopeSeparator: separator }) });
      await connectedId(w);
      expect(w.auth.authorizations[0]?.params.scope).toBe(`read${char}write`);
    });
  }

  test("the definition's authorization and token parameters reach the provider", async () => {
    const w = await world({
      behaviour: {
        requiredAuthorizationParams: { audience: "api.acme.test", prompt: "consent" },
        requiredTokenParams: { resource: "https://api.acme.test" },
      },
      definition: () => ({
        authorizationParams: { audience: "api.acme.test", prompt: "consent" },
        tokenParams: { resource: "https://api.acme.test" },
      }),
    });
    const id = await connectedId(w);
    await w.credentials(id, true);
    expect(w.auth.tokenRequests.map((r) => [r.grantType, r.params.resource])).toEqual([
      ["authorization_code", "https://api.acme.test"],
      ["refresh_token", "https://api.acme.test"],
    ]);
  });
});

describe("token answers", () => {
  test("form-encoded answers are read, on the exchange and the refresh", async () => {
    const w = await world({
      behaviour: { answerFormat: "form" },
      definition: () => ({ tokenResponse: { format: "form" } }),
    });
    const id = await connectedId(w);
    const first = await w.credentials(id);
    expect(first.accessToken).toBe(w.auth.issuedAccessTokens[0] as string);
    expect(Number(first.expiresAtMs)).toBe(w.clock.now() + 3600_000);
    await w.clock.advance(3600_000);
    expect((await w.credentials(id)).accessToken).toBe(w.auth.issuedAccessTokens[1] as string);
  });

  test("a user token nested under authed_user is the connection's token, not the top-level bot token", async () => {
    const w = await world({
      behaviour: { nestUnder: "authed_user", tokenType: "user" },
      definition: () => ({ tokenResponse: { root: "authed_user", tokenTypes: ["user"] } }),
    });
    const id = await connectedId(w);
    const creds = await w.credentials(id);
    expect(creds.accessToken).toBe(w.auth.issuedAccessTokens[0] as string);
    expect(creds.refreshToken).toBe(w.auth.liveRefreshTokens()[0] as string);
    const echo = await w.proxyEcho(id);
    expect(echo.status).toBe(200);
    expect(echo.body.headers.authorization).toBe(`Bearer ${creds.accessToken}`);
  });

  test("tokens that never expire (no expires_in) are served as they are and refreshed only when forced", async () => {
    const w = await world({ behaviour: { expiresIn: null } });
    const id = await connectedId(w);
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=acme`);
    expect(conn.body.credentials.expires_at).toBeNull();
    // Ten times the lifetime the fake gives tokens that expire.
    await w.clock.advance(10 * 3600_000);
    expect((await w.proxyEcho(id)).status).toBe(200);
    expect(w.auth.tokenRequests.filter((r) => r.grantType === "refresh_token")).toHaveLength(0);
    await w.credentials(id, true);
    expect(w.auth.tokenRequests.filter((r) => r.grantType === "refresh_token")).toHaveLength(1);
  });
});
