import { describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { codeFor, consentOverHttp, issueMcpUrl, UNHEARD_REDIRECT } from "./mcp-auth-kit.ts";
import { useScriptsWorld } from "./scripts-kit.ts";

// An MCP client's authorization by an end user is recorded once where it ends: tokens issued at the code's
// exchange (`success`), the end user's Deny (`failed` at consent, as a declined consent at a provider is), and
// each request the front door refuses (`refused`, at start, consent or exchange, with the OAuth error); a
// refresh as `token_refresh`. With the MCP URL's end user once the request names it; never a code, a verifier,
// a token.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

/** The operations of `kind`, newest first, once there are `n`. */
function operations(j: TestJunction, kind: string, n: number): Promise<any[]> {
  return waitFor(`${n} ${kind} operations`, async () => {
    const res = await j.api("GET", `/logs/operations?kind=${kind}&limit=500`);
    return res.body.data?.length >= n ? res.body.data : null;
  });
}

/** The newest operation of `kind` once there are `n`, with its first message's fields. */
async function nth(j: TestJunction, kind: string, n: number) {
  const [op] = await operations(j, kind, n);
  const detail = (await j.api("GET", `/logs/operations/${op.id}`)).body.data;
  return { ...op, fields: detail.messages[0].fields };
}

describe("MCP client authorizations in the operations log", () => {
  test("each end is one operation: refused requests, a Deny, tokens issued, refreshes", async () => {
    const w = await world();
    const mcp = await issueMcpUrl(w, "u-alice");
    const alice = { end_user: "u-alice", tags: [`mcp_url:${mcp.id}`] };
    const nobody = { end_user: null, tags: [] };
    const route = "POST /mcp/oauth/token";
    const secrets: string[] = [];

    // A wrong PKCE verifier at the exchange (the consent's Allow is no end: nothing recorded for it).
    const exchange = (c: Awaited<ReturnType<typeof codeFor>>, codeVerifier = c.codeVerifier) =>
      exchangeAuthorization(w.j.baseUrl, {
        metadata: c.metadata,
        clientInformation: c.client,
        authorizationCode: c.code,
        codeVerifier,
        redirectUri: UNHEARD_REDIRECT,
        resource: mcp.url,
      });
    const a = await codeFor(w, mcp.url);
    secrets.push(a.code, a.codeVerifier);
    await expect(exchange(a, "x".repeat(43))).rejects.toThrow();
    expect(await nth(w.j, "authorization", 1)).toMatchObject({
      status: "refused",
      title: "MCP client: authorization failed at exchange: invalid_grant",
      ...alice,
      fields: { step: "exchange", error: "invalid_grant", status: 400, route, client: a.client.client_id },
    });

    // A good exchange: authorized.
    const b = await codeFor(w, mcp.url);
    const issued = await exchange(b);
    secrets.push(b.code, b.codeVerifier, issued.access_token, issued.refresh_token ?? "");
    expect(await nth(w.j, "authorization", 2)).toMatchObject({
      status: "success",
      title: "MCP client: authorized",
      ...alice,
      fields: { step: "exchange", route, client: b.client.client_id },
    });
    let count = 2;

    // An unknown client at the authorization endpoint: a page, recorded with the MCP URL's end user.
    const started = await startAuthorization(w.j.baseUrl, {
      metadata: b.metadata,
      clientInformation: { client_id: "mcpc_unregistered" },
      redirectUrl: UNHEARD_REDIRECT,
      resource: mcp.url,
    });
    secrets.push(started.codeVerifier);
    expect((await fetch(started.authorizationUrl, { redirect: "manual" })).status).toBe(400);
    expect(await nth(w.j, "authorization", ++count)).toMatchObject({
      status: "refused",
      title: "MCP client: authorization failed at start: invalid_client",
      ...alice,
      fields: { step: "start", error: "invalid_client", status: 400, route: "GET /mcp/oauth/authorize" },
    });

    // No PKCE S256: back to the client with the error.
    const ok = await startAuthorization(w.j.baseUrl, {
      metadata: b.metadata,
      clientInformation: b.client,
      redirectUrl: UNHEARD_REDIRECT,
      resource: mcp.url,
    });
    const plain = new URL(ok.authorizationUrl);
    plain.searchParams.set("code_challenge_method", "plain");
    expect((await fetch(plain, { redirect: "manual" })).status).toBe(302);
    expect(await nth(w.j, "authorization", ++count)).toMatchObject({
      status: "refused",
      ...alice,
      fields: { step: "start", error: "invalid_request", status: 302 },
    });

    // The end user's Deny.
    expect((await consentOverHttp(ok.authorizationUrl, "deny")).searchParams.get("error")).toBe("access_denied");
    expect(await nth(w.j, "authorization", ++count)).toMatchObject({
      status: "failed",
      title: "MCP client: authorization failed at consent: access_denied",
      ...alice,
      fields: { step: "consent", error: "access_denied", route: "POST /connect/mcp/consent" },
    });

    // A consent page for a request that does not exist: nobody.
    expect((await fetch(`${w.j.baseUrl}/connect/mcp/consent?request=mcpr_nope`)).status).toBe(400);
    expect(await nth(w.j, "authorization", ++count)).toMatchObject({
      status: "refused",
      ...nobody,
      fields: { step: "consent", error: "unknown_consent_request", route: "GET /connect/mcp/consent" },
    });

    // Refreshes: a good one, then the spent token again.
    const refresh = () =>
      refreshAuthorization(w.j.baseUrl, {
        metadata: b.metadata,
        clientInformation: b.client,
        refreshToken: issued.refresh_token ?? "",
        resource: mcp.url,
      });
    const renewed = await refresh();
    secrets.push(renewed.access_token, renewed.refresh_token ?? "");
    expect(await nth(w.j, "token_refresh", 1)).toMatchObject({
      status: "success",
      title: "MCP client: token refreshed",
      ...alice,
    });
    await expect(refresh()).rejects.toThrow();
    expect(await nth(w.j, "token_refresh", 2)).toMatchObject({
      status: "refused",
      title: "MCP client: refresh refused: invalid_grant",
      // A spent refresh token is gone: it names no MCP URL any more.
      ...nobody,
      fields: { step: "refresh", error: "invalid_grant", route },
    });

    // Registration is not an end user's authorization: not recorded. Nothing else was either.
    await w.j.operations.flushed();
    const all = [...(await operations(w.j, "authorization", count)), ...(await operations(w.j, "token_refresh", 2))];
    expect(all).toHaveLength(count + 2);
    const stored = JSON.stringify(await Promise.all(all.map((o) => w.j.api("GET", `/logs/operations/${o.id}`))));
    for (const secret of secrets.filter(Boolean)) expect(stored).not.toContain(secret);
  });
});
