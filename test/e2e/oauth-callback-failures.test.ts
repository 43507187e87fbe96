import { describe, expect, test } from "bun:test";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";

const world = useOAuthWorld();

// Each bad input gets a page that names what happened, never a hang or a bare 500, and leaves no
// partial connection behind.

describe("the callback page", () => {
  test("missing, unknown and replayed state", async () => {
    const w = await world();
    await w.integration();
    const missing = await w.callback(`${w.j.url}/oauth/callback?code=abc`);
    expect([missing.status, missing.code]).toEqual([400, "missing_state"]);
    const unknown = await w.callback(`${w.j.url}/oauth/callback?state=forged&code=abc`);
    expect([unknown.status, unknown.code]).toEqual([400, "unknown_state"]);
    expect(unknown.html).toContain("unknown state");
    expect(await w.connectionIds()).toEqual([]);

    const url = await w.authorize();
    expect((await w.callback(url)).code).toBe("connected");
    const replay = await w.callback(url);
    expect([replay.status, replay.code]).toEqual([400, "state_already_used"]);
    expect(await w.connectionIds()).toHaveLength(1);
    expect(w.fake.state.tokenRequests.authorization_code).toBe(1);
  });

  test("an authorization that took too long, and a connect session that expired meanwhile", async () => {
    const w = await world({ env: { JUNCTION_CONNECT_SESSION_TTL_MS: String(5 * 60_000) } });
    await w.integration();
    const slow = await w.authorize();
    await w.clock.advance(10 * 60_000);
    const late = await w.callback(slow);
    expect([late.status, late.code]).toEqual([400, "authorization_expired"]);
    const url = await w.authorize();
    await w.clock.advance(5 * 60_000);
    const expired = await w.callback(url);
    expect([expired.status, expired.code]).toEqual([401, "connect_session_expired"]);
    expect(await w.connectionIds()).toEqual([]);
    expect(w.fake.state.tokenRequests.total).toBe(0);
  });

  test("the user declines consent (error=access_denied)", async () => {
    const w = await world();
    await w.integration();
    w.fake.setNextAuthorization({ deny: true });
    const denied = await w.callback(await w.authorize());
    expect([denied.status, denied.code]).toEqual([403, "access_denied"]);
    expect(denied.html).toContain("declined");
    expect(await w.connectionIds()).toEqual([]);
  });

  test("a code used twice: the upstream's invalid_grant is shown", async () => {
    const w = await world();
    await w.integration();
    const first = await w.authorize();
    await w.callback(first);
    const second = await w.authorize("cal", await w.session({ end_user: { id: "mallory" } }));
    second.searchParams.set("code", first.searchParams.get("code") as string);
    const reused = await w.callback(second);
    expect([reused.status, reused.code]).toEqual([400, "token_exchange_refused"]);
    expect(reused.html).toContain("invalid_grant");
    expect(reused.html).toContain("Bad Request");
    expect(await w.connectionIds()).toHaveLength(1);
  });

  test("a token endpoint that times out or answers HTML", async () => {
    const w = await world({ env: { JUNCTION_TOKEN_REQUEST_TIMEOUT_MS: "400" } });
    await w.integration();
    w.fake.setTokenEndpointBehavior("timeout", { times: 1 });
    const started = performance.now();
    const timedOut = await w.callback(await w.authorize());
    expect([timedOut.status, timedOut.code]).toEqual([504, "token_endpoint_timeout"]);
    expect(performance.now() - started).toBeLessThan(10_000);
    w.fake.setTokenEndpointBehavior("html", { times: 1 });
    const html = await w.callback(await w.authorize());
    expect([html.status, html.code]).toEqual([502, "token_endpoint_invalid_response"]);
    expect(html.html).toContain("an HTML page, not a token answer");
    expect(await w.connectionIds()).toEqual([]);
  });

  test("a token response without expires_in gives a connection with an unknown expiry", async () => {
    const w = await world();
    await w.integration();
    w.fake.setTokenEndpointBehavior("no-expires-in", { times: 1 });
    expect((await w.callback(await w.authorize())).code).toBe("connected");
    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.credentials).toMatchObject({ type: "OAUTH2", expires_at: null });
  });

  test("an integration deleted during the authorization is named, and nothing is saved", async () => {
    const w = await world();
    await w.integration();
    const url = await w.authorize();
    await w.j.api("DELETE", "/integrations/cal?force=true");
    const gone = await w.callback(url);
    expect([gone.status, gone.code]).toEqual([409, "configuration_error"]);
    expect(gone.html).toContain("deleted or changed");
    expect(w.fake.state.tokenRequests.total).toBe(0);
  });
});
