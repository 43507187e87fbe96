import { describe, expect, test } from "bun:test";
import { connectedId, type VariationWorld, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();
const HOUR = 3600_000;

const refreshes = (w: VariationWorld) => w.auth.tokenRequests.filter((r) => r.grantType === "refresh_token");

describe("refresh tokens that rotate on every refresh", () => {
  test("each refresh stores the new refresh token with the new access token; the provider's one live token is Junction's", async () => {
    const w = await world({ behaviour: { rotateRefreshTokens: true } });
    const id = await connectedId(w);
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      await w.clock.advance(HOUR);
      const creds = await w.credentials(id);
      expect(w.auth.liveRefreshTokens()).toEqual([creds.refreshToken]);
      expect(creds.accessToken).toBe(w.auth.issuedAccessTokens.at(-1) as string);
      seen.add(creds.refreshToken);
    }
    expect(seen.size).toBe(3);
    expect(refreshes(w)).toHaveLength(3);
    // 20 concurrent callers on an expired token: one refresh, so one rotation and no token lost to a race.
    await w.clock.advance(HOUR);
    const all = await Promise.all(Array.from({ length: 20 }, () => w.proxyEcho(id)));
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(refreshes(w)).toHaveLength(4);
    expect(w.auth.liveRefreshTokens()).toEqual([(await w.credentials(id)).refreshToken]);
  });

  test("an answer lost after the provider rotated keeps the old refresh token; with the provider's grace it works again", async () => {
    const w = await world({ behaviour: { rotateRefreshTokens: true, retiredRefreshTokenGrace: true } });
    const id = await connectedId(w);
    const before = await w.credentials(id);
    await w.clock.advance(HOUR);
    w.auth.behave({ loseNextRefreshAnswer: "html_502" });
    const lost = await w.j.api("GET", `/connection/${id}?provider_config_key=acme`);
    expect(lost.status).toBe(424);
    expect(lost.body.error.message).toContain("an HTML page");
    const [conn] = (await w.j.api("GET", `/connections?connectionId=${id}`)).body.connections;
    expect(conn.errors[0]).toMatchObject({ type: "refresh_unavailable" });
    await w.clock.advance(31_000); // past the transient cooldown
    const after = await w.credentials(id);
    // Nothing half-written: the retry presented the refresh token the connection had before the lost answer.
    expect(refreshes(w).map((r) => r.refreshToken)).toEqual([before.refreshToken, before.refreshToken]);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(w.auth.liveRefreshTokens()).toContain(after.refreshToken);
  });

  test("a provider that rotates and then fails: the connection keeps its last refresh token, records the refusal, and a reconnect heals it", async () => {
    const w = await world({ behaviour: { rotateRefreshTokens: true } });
    const id = await connectedId(w);
    await w.clock.advance(HOUR);
    const rotated = await w.credentials(id);
    await w.clock.advance(HOUR);
    // The provider rotates (retiring the token Junction holds) and the answer never arrives.
    w.auth.behave({ loseNextRefreshAnswer: "json_500" });
    expect((await w.proxyEcho(id)).status).toBe(424);
    await w.clock.advance(31_000);
    const refused = await w.proxyEcho(id);
    expect(refused.status).toBe(424);
    expect(refused.body.error.code).toBe("connection_refresh_failed");
    expect(refused.body.error.message).toContain("invalid_grant");
    const [conn] = (await w.j.api("GET", `/connections?connectionId=${id}`)).body.connections;
    expect(conn.errors).toHaveLength(1);
    expect(conn.errors[0]).toMatchObject({ type: "refresh_failed" });
    // Junction kept and presented the last refresh token it received: never blanked, never a guess.
    expect(refreshes(w).map((r) => r.refreshToken)).toEqual([
      expect.any(String),
      rotated.refreshToken,
      rotated.refreshToken,
    ]);
    const again = await w.j.api("POST", "/connect/sessions/reconnect", { connection_id: id, integration_id: "acme" });
    const res = await w.start(again.body.data.token);
    const back = await w.auth.authorize(res.headers.get("location") as string);
    const page = await fetch(`${w.j.url}${back.pathname}${back.search}`, { headers: { accept: "text/html" } });
    expect(await page.text()).toContain('<span id="code">connected</span>');
    const healed = await w.credentials(id);
    expect(healed.refreshToken).not.toBe(rotated.refreshToken);
    expect((await w.proxyEcho(id)).status).toBe(200);
  });
});

describe("refresh requests that need the scopes again", () => {
  test("the granted scopes are sent on refresh when the definition says so", async () => {
    const w = await world({ behaviour: { refreshNeedsScope: true }, definition: () => ({ refreshNeedsScopes: true }) });
    const id = await connectedId(w);
    await w.clock.advance(HOUR);
    expect((await w.proxyEcho(id)).status).toBe(200);
    expect(refreshes(w)[0]?.params.scope).toBe("read write");
  });

  test("without it, such a provider refuses the refresh (invalid_scope), recorded on the connection", async () => {
    const w = await world({ behaviour: { refreshNeedsScope: true } });
    const id = await connectedId(w);
    await w.clock.advance(HOUR);
    const res = await w.proxyEcho(id);
    expect(res.status).toBe(424);
    expect(res.body.error.message).toContain("invalid_scope");
  });
});

describe("refresh tokens spent at a separate endpoint (the definition's refreshUrl)", () => {
  const separate = { refreshPath: "/oauth/refresh" };

  test("the code is exchanged at the token URL and every refresh goes to the refresh URL; the refresh token is kept", async () => {
    const w = await world({ behaviour: separate, definition: (a) => ({ refreshUrl: `${a.url}/oauth/refresh` }) });
    const id = await connectedId(w);
    const before = await w.credentials(id);
    await w.clock.advance(HOUR);
    expect((await w.proxyEcho(id)).status).toBe(200);
    await w.clock.advance(HOUR);
    const after = await w.credentials(id);
    expect(w.auth.tokenRequests.map((r) => [r.grantType, r.path])).toEqual([
      ["authorization_code", "/oauth/token"],
      ["refresh_token", "/oauth/refresh"],
      ["refresh_token", "/oauth/refresh"],
    ]);
    // The endpoint answers no new refresh token: the connection keeps the one it was given.
    expect(after.refreshToken).toBe(before.refreshToken);
    expect(after.accessToken).toBe(w.auth.issuedAccessTokens.at(-1) as string);
  });

  test("without refreshUrl, such a provider refuses the refresh at its token URL, recorded on the connection", async () => {
    const w = await world({ behaviour: separate });
    const id = await connectedId(w);
    await w.clock.advance(HOUR);
    const res = await w.proxyEcho(id);
    expect(res.status).toBe(424);
    expect(res.body.error.message).toContain("unsupported_grant_type");
    expect(refreshes(w).map((r) => r.path)).toEqual(["/oauth/token"]);
  });
});
