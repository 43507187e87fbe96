import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  authorizeOverHttp,
  codeFor,
  consentOverHttp,
  initializeRequest,
  issueMcpUrl,
  MemoryOAuthProvider,
  UNHEARD_REDIRECT,
} from "./mcp-auth-kit.ts";
import { type ScriptsWorld, useScriptsWorld } from "./scripts-kit.ts";

// What the MCP front door refuses: tokens for another MCP URL, expired or revoked ones, a wrong PKCE
// verifier, a code used twice, a redirect URI that is not the client's, an unregistered client, and
// registration or authorization requests the specs do not allow. Driven with the SDK's own helpers.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

/** A raw initialize on an MCP URL with `token` as the bearer. */
const initializeWith = (url: string, token: string | undefined) => fetch(url, initializeRequest(token));

async function expectRefused(url: string, id: string, token: string | undefined, w: ScriptsWorld) {
  const res = await initializeWith(url, token);
  expect(res.status).toBe(401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain(`resource_metadata="${w.j.baseUrl}/.well-known/oauth-protected-resource/mcp/u/${id}"`);
  if (token) expect(challenge).toContain('error="invalid_token"');
  expect((await res.json()).error.code).toBe("invalid_token");
}

describe("MCP front door: refused tokens", () => {
  test("no token, a token of another user's MCP URL, and an unknown token: 401 naming the resource metadata", async () => {
    const w = await world();
    const alice = await issueMcpUrl(w, "u-alice");
    const bob = await issueMcpUrl(w, "u-bob");
    const tokens = await authorizeOverHttp(alice.url, new MemoryOAuthProvider(UNHEARD_REDIRECT));
    expect((await initializeWith(alice.url, tokens.access_token)).status).toBe(200);
    await expectRefused(alice.url, alice.id, undefined, w);
    await expectRefused(bob.url, bob.id, tokens.access_token, w);
    await expectRefused(alice.url, alice.id, "jct_mcp_at_not-a-token", w);
    // The refresh token is no access token.
    await expectRefused(alice.url, alice.id, tokens.refresh_token, w);
    // Neither the tokens nor the MCP URL's id are written to the logs.
    const logs = w.j.logLines.join("\n");
    for (const secret of [tokens.access_token, tokens.refresh_token ?? "", alice.id, bob.id]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).toContain(`/mcp/u/${alice.id.slice(0, 12)}…`);
  });

  test("an expired access token is refused; its refresh token answers new tokens once (rotation)", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    const mcp = await issueMcpUrl(w, "u-alice");
    const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
    const tokens = await authorizeOverHttp(mcp.url, provider);
    expect(tokens.expires_in).toBe(3600);
    await clock.advance(3600 * 1000);
    await expectRefused(mcp.url, mcp.id, tokens.access_token, w);
    const metadata = (await discoverAuthorizationServerMetadata(w.j.baseUrl)) as AuthorizationServerMetadata;
    const clientInformation = provider.client as NonNullable<typeof provider.client>;
    const fresh = await refreshAuthorization(w.j.baseUrl, {
      metadata,
      clientInformation,
      refreshToken: tokens.refresh_token ?? "",
      resource: mcp.url,
    });
    expect(fresh.refresh_token).not.toBe(tokens.refresh_token);
    expect((await initializeWith(mcp.url, fresh.access_token)).status).toBe(200);
    const again = refreshAuthorization(w.j.baseUrl, {
      metadata,
      clientInformation,
      refreshToken: tokens.refresh_token ?? "",
      resource: mcp.url,
    });
    await expect(again).rejects.toBeInstanceOf(InvalidGrantError);
  });

  test("revoking the URL's tokens, then the URL itself, refuses every token and every refresh", async () => {
    const w = await world();
    const mcp = await issueMcpUrl(w, "u-alice");
    const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
    const first = await authorizeOverHttp(mcp.url, provider);
    const revoked = await w.api("DELETE", `/mcp/servers/${mcp.id}/tokens`);
    expect(revoked.body).toEqual({ data: { revoked_tokens: 2 } });
    await expectRefused(mcp.url, mcp.id, first.access_token, w);

    const second = await authorizeOverHttp(mcp.url, new MemoryOAuthProvider(UNHEARD_REDIRECT));
    expect((await initializeWith(mcp.url, second.access_token)).status).toBe(200);
    expect((await w.api("DELETE", `/mcp/servers/${mcp.id}`)).status).toBe(200);
    await expectRefused(mcp.url, mcp.id, second.access_token, w);
    const metadataDoc = await fetch(`${w.j.baseUrl}/.well-known/oauth-protected-resource/mcp/u/${mcp.id}`);
    expect(metadataDoc.status).toBe(404);
    const read = await w.api("GET", `/mcp/servers/${mcp.id}`);
    expect(read.body.data.revoked_at).not.toBeNull();
    expect((await w.api("DELETE", `/mcp/servers/${mcp.id}`)).body.error.code).toBe("unknown_mcp_server");
  });
});

describe("MCP front door: refused codes and requests", () => {
  test("a wrong PKCE verifier spends the code; a code is good once; the redirect URI must be the request's", async () => {
    const w = await world();
    const mcp = await issueMcpUrl(w, "u-alice");
    const a = await codeFor(w, mcp.url);
    const wrong = exchangeAuthorization(w.j.baseUrl, {
      ...a,
      clientInformation: a.client,
      authorizationCode: a.code,
      codeVerifier: "x".repeat(43),
      redirectUri: UNHEARD_REDIRECT,
      resource: mcp.url,
    });
    await expect(wrong).rejects.toBeInstanceOf(InvalidGrantError);

    const b = await codeFor(w, mcp.url);
    const exchange = () =>
      exchangeAuthorization(w.j.baseUrl, {
        metadata: b.metadata,
        clientInformation: b.client,
        authorizationCode: b.code,
        codeVerifier: b.codeVerifier,
        redirectUri: UNHEARD_REDIRECT,
        resource: mcp.url,
      });
    expect((await exchange()).access_token).toMatch(/^jct_mcp_at_/);
    await expect(exchange()).rejects.toBeInstanceOf(InvalidGrantError);

    const c = await codeFor(w, mcp.url);
    const elsewhere = exchangeAuthorization(w.j.baseUrl, {
      metadata: c.metadata,
      clientInformation: c.client,
      authorizationCode: c.code,
      codeVerifier: c.codeVerifier,
      redirectUri: "http://127.0.0.1:9/other",
      resource: mcp.url,
    });
    await expect(elsewhere).rejects.toBeInstanceOf(InvalidGrantError);
  });

  test("an unregistered client or a redirect URI it did not register gets a page, never a redirect", async () => {
    const w = await world();
    const mcp = await issueMcpUrl(w, "u-alice");
    const a = await codeFor(w, mcp.url);
    const authorize = async (clientId: string, redirectUri: string) => {
      const { authorizationUrl } = await startAuthorization(w.j.baseUrl, {
        metadata: a.metadata,
        clientInformation: { client_id: clientId },
        redirectUrl: redirectUri,
        resource: mcp.url,
      });
      const res = await fetch(authorizationUrl, { redirect: "manual" });
      return { status: res.status, location: res.headers.get("location"), text: await res.text() };
    };
    const unknown = await authorize("mcpc_unregistered", UNHEARD_REDIRECT);
    expect(unknown).toMatchObject({ status: 400, location: null });
    expect(unknown.text).toContain('data-code="invalid_client"');
    const foreign = await authorize(a.client.client_id, "https://attacker.example/cb");
    expect(foreign).toMatchObject({ status: 400, location: null });
    expect(foreign.text).toContain('data-code="invalid_redirect_uri"');
    // A code of this client presented as another's.
    const stolen = exchangeAuthorization(w.j.baseUrl, {
      metadata: a.metadata,
      clientInformation: { client_id: "mcpc_unregistered" },
      authorizationCode: a.code,
      codeVerifier: a.codeVerifier,
      redirectUri: UNHEARD_REDIRECT,
      resource: mcp.url,
    });
    await expect(stolen).rejects.toBeInstanceOf(InvalidGrantError);
  });

  test("authorize without PKCE S256 or for a resource that is no MCP URL goes back with the error; Deny too", async () => {
    const w = await world();
    const mcp = await issueMcpUrl(w, "u-alice");
    const { client, metadata } = await codeFor(w, mcp.url);
    const { authorizationUrl } = await startAuthorization(w.j.baseUrl, {
      metadata,
      clientInformation: client,
      redirectUrl: UNHEARD_REDIRECT,
      resource: mcp.url,
      state: "s1",
    });
    const errorOf = async (change: (u: URL) => void) => {
      const url = new URL(authorizationUrl);
      change(url);
      const res = await fetch(url, { redirect: "manual" });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get("location") ?? "");
      expect(back.origin + back.pathname).toBe(UNHEARD_REDIRECT);
      expect(back.searchParams.get("state")).toBe("s1");
      return back.searchParams.get("error");
    };
    expect(await errorOf((u) => u.searchParams.set("code_challenge_method", "plain"))).toBe("invalid_request");
    expect(await errorOf((u) => u.searchParams.delete("code_challenge"))).toBe("invalid_request");
    expect(await errorOf((u) => u.searchParams.delete("resource"))).toBe("invalid_target");
    expect(await errorOf((u) => u.searchParams.set("resource", `${w.j.baseUrl}/mcp`))).toBe("invalid_target");
    expect(await errorOf((u) => u.searchParams.set("response_type", "token"))).toBe("unsupported_response_type");
    const denied = await consentOverHttp(authorizationUrl, "deny");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("code")).toBeNull();
  });

  test("registration refuses redirect URIs that are neither https nor loopback http", async () => {
    const w = await world();
    const metadata = (await discoverAuthorizationServerMetadata(w.j.baseUrl)) as AuthorizationServerMetadata;
    for (const uri of ["http://evil.example/cb", "javascript:alert(1)", "https://app.example/cb#frag"]) {
      const res = await fetch(metadata.registration_endpoint ?? "", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "x", redirect_uris: [uri] }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("invalid_redirect_uri");
    }
    const sdk = registerClient(w.j.baseUrl, {
      metadata,
      clientMetadata: { client_name: "x", redirect_uris: ["http://evil.example/cb"] },
    });
    await expect(sdk).rejects.toThrow("must be https, or http to 127.0.0.1");
    const huge = await fetch(metadata.registration_endpoint ?? "", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [UNHEARD_REDIRECT], client_name: "x".repeat(20_000) }),
    });
    expect(huge.status).toBe(413);
  });

  test("registration is bounded: past the maximum, 503 until clients registered a day ago and never used make room", async () => {
    const clock = new ManualClock();
    const w = await world({ clock, env: { JUNCTION_MCP_MAX_REGISTERED_CLIENTS: "2" } });
    const metadata = (await discoverAuthorizationServerMetadata(w.j.baseUrl)) as AuthorizationServerMetadata;
    const register = () =>
      fetch(metadata.registration_endpoint ?? "", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "x", redirect_uris: [UNHEARD_REDIRECT] }),
      });
    // One used (it holds tokens), one not.
    await authorizeOverHttp((await issueMcpUrl(w, "u-alice")).url, new MemoryOAuthProvider(UNHEARD_REDIRECT));
    expect((await register()).status).toBe(201);
    const full = await register();
    expect(full.status).toBe(503);
    expect((await full.json()).error).toBe("temporarily_unavailable");
    await clock.advance(86_400_000 + 1);
    expect((await register()).status).toBe(201);
    // The used client kept its place: the set is full again.
    expect((await register()).status).toBe(503);
  });
});
