import { describe, expect, test } from "bun:test";
import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";
import { bodyOf, type Harness, useOAuthHarness } from "../../testing/oauth-test-kit.ts";

const harness = useOAuthHarness();

/** Nothing was written: no connection, no event. */
async function expectNoConnection(h: Harness): Promise<void> {
  expect((await h.client.listConnections({ providerConfigKey: "cal" })).total).toBe(0);
  expect(h.events).toEqual([]);
}

describe("the callback's state", () => {
  test("is required, must be known, and works once: a replay is told apart and writes nothing", async () => {
    const h = await harness.start();
    await h.integration();
    expect((await h.client.completeAuthorization({ code: "x" })).outcome).toBe(AuthorizationOutcome.MISSING_STATE);
    expect((await h.client.completeAuthorization({ state: "forged", code: "x" })).outcome).toBe(
      AuthorizationOutcome.UNKNOWN_STATE,
    );
    await expectNoConnection(h);

    const callback = await h.authorizeOnly();
    expect((await h.complete(callback)).outcome).toBe(AuthorizationOutcome.CONNECTED);
    const replay = await h.complete(callback);
    expect(replay.outcome).toBe(AuthorizationOutcome.STATE_ALREADY_USED);
    expect(replay.message).toMatch(/already used/);
    expect(h.fake.state.tokenRequests.authorization_code).toBe(1);
    expect((await h.client.listConnections({ providerConfigKey: "cal" })).total).toBe(1);
  });

  test("expires: a slow authorization and an expired connect session are refused before any token request", async () => {
    const h = await harness.start({ oauth: { connectSessionTtlMs: 5 * 60_000, authorizationStateTtlMs: 10 * 60_000 } });
    await h.integration();
    const slow = await h.authorizeOnly();
    await h.clock.advance(10 * 60_000);
    const late = await h.complete(slow);
    expect(late.outcome).toBe(AuthorizationOutcome.AUTHORIZATION_EXPIRED);
    expect(late.message).toMatch(/within 10 minutes/);

    const sessionGone = await h.authorizeOnly();
    await h.clock.advance(6 * 60_000);
    expect((await h.complete(sessionGone)).outcome).toBe(AuthorizationOutcome.CONNECT_SESSION_EXPIRED);
    expect(h.fake.state.tokenRequests.total).toBe(0);
    await expectNoConnection(h);
  });
});

describe("the upstream's answer", () => {
  test("error=access_denied is reported as declined consent, with a failed creation webhook", async () => {
    const h = await harness.start();
    await h.integration();
    h.fake.setNextAuthorization({ deny: true });
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.ACCESS_DENIED);
    expect(answer.upstreamError).toBe("access_denied");
    expect(answer.message).toMatch(/declined/);
    await expectNoConnection(h);
    const [job] = await h.waitForDeliveries(1);
    expect(bodyOf(job!)).toMatchObject({
      type: "auth",
      operation: "creation",
      success: false,
      connectionId: answer.connectionId,
      error: { type: "access_denied" },
    });
  });

  test("another error= is named", async () => {
    const h = await harness.start();
    await h.integration();
    h.fake.setNextAuthorization({ error: "server_error" });
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.UPSTREAM_ERROR);
    expect(answer.message).toContain("server_error");
    await expectNoConnection(h);
  });

  test("a callback with neither code nor error is refused", async () => {
    const h = await harness.start();
    await h.integration();
    const callback = await h.authorizeOnly();
    callback.searchParams.delete("code");
    expect((await h.complete(callback)).outcome).toBe(AuthorizationOutcome.MISSING_CODE);
    await expectNoConnection(h);
  });
});

describe("the token exchange", () => {
  test("a code used twice gets the upstream's invalid_grant, and no second connection", async () => {
    const h = await harness.start();
    await h.integration();
    const first = await h.authorizeOnly();
    expect((await h.complete(first)).outcome).toBe(AuthorizationOutcome.CONNECTED);
    const second = await h.authorizeOnly({ endUserId: "attacker" });
    second.searchParams.set("code", first.searchParams.get("code") as string);
    const answer = await h.complete(second);
    expect(answer.outcome).toBe(AuthorizationOutcome.TOKEN_EXCHANGE_REFUSED);
    expect(answer.upstreamError).toBe("invalid_grant");
    expect(answer.upstreamErrorDescription).toBe("Bad Request");
    expect(answer.message).toMatch(/already used, has expired/);
    expect((await h.client.listConnections({ providerConfigKey: "cal" })).total).toBe(1);
  });

  test("a token endpoint that never answers times out with a clear answer", async () => {
    const h = await harness.start({ oauth: { tokenRequestTimeoutMs: 300 } });
    await h.integration();
    h.fake.setTokenEndpointBehavior("timeout");
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.TOKEN_ENDPOINT_TIMEOUT);
    expect(answer.message).toMatch(/did not answer within 0.3 s/);
    await expectNoConnection(h);
  });

  test("a token endpoint that answers HTML is not taken for a token", async () => {
    const h = await harness.start();
    await h.integration();
    h.fake.setTokenEndpointBehavior("html");
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE);
    expect(answer.message).toMatch(/provider "google-calendar" answered HTTP 502 .*an HTML page/);
    await expectNoConnection(h);
  });

  test("a token response without expires_in is accepted with an unknown expiry, refreshed only when forced", async () => {
    const h = await harness.start();
    await h.integration();
    h.fake.setTokenEndpointBehavior("no-expires-in", { times: 1 });
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.CONNECTED);
    const ref = { providerConfigKey: "cal", connectionId: answer.connectionId };
    const first = await h.client.getCredentials(ref);
    expect(first.credentials?.expiresAtMs).toBe(0n);
    await h.clock.advance(2 * 3600_000);
    expect((await h.client.getCredentials(ref)).credentials?.accessToken).toBe(
      first.credentials?.accessToken as string,
    );
    expect(h.fake.state.tokenRequests.refresh_token).toBe(0);
    const forced = await h.client.getCredentials({ ...ref, forceRefresh: true });
    expect(forced.credentials?.accessToken).not.toBe(first.credentials?.accessToken as string);
    expect(Number(forced.credentials?.expiresAtMs)).toBe(h.clock.now() + 3599_000);
    expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
  });

  test("wrong client credentials are named as such", async () => {
    const h = await harness.start();
    await h.integration();
    await h.client.updateIntegration({ uniqueKey: "cal", clientSecret: "wrong-secret" });
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.TOKEN_EXCHANGE_REFUSED);
    expect(answer.upstreamError).toBe("invalid_client");
    expect(answer.message).toMatch(/client id or secret/);
    expect(JSON.stringify(answer)).not.toContain("wrong-secret");
    await expectNoConnection(h);
  });
});
