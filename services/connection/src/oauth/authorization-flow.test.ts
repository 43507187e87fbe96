import { describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";
import { Encryptor, sha256Hex } from "@junction/platform";
import { pkceS256 } from "./pkce.ts";
import { emailAddressHash } from "../email-hash.ts";
import { BASE_URL, bodyOf, CALENDAR_SCOPE, CLIENT, KEY, useOAuthHarness } from "../../testing/oauth-test-kit.ts";
import { secretContexts } from "../secret-contexts.ts";

const harness = useOAuthHarness();

describe("starting authorization", () => {
  test("redirects with client_id, redirect_uri, scopes, a single-use state, PKCE S256 and the template's parameters", async () => {
    const h = await harness.start();
    await h.integration();
    const { token } = await h.client.createConnectSession({
      endUser: { id: "user-1" } as JsonObject,
      allowedIntegrations: ["cal"],
    });
    const { authorizationUrl } = await h.client.startAuthorization({
      providerConfigKey: "cal",
      connectSessionToken: token,
      includeGrantedScopes: true,
      extraScopes: ["profile"],
    });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(h.fake.endpoints.authorizationUrl);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      client_id: CLIENT.clientId,
      redirect_uri: `${BASE_URL}/oauth/callback`,
      response_type: "code",
      access_type: "offline",
      prompt: "consent",
      code_challenge_method: "S256",
      include_granted_scopes: "true",
      scope: `openid email ${CALENDAR_SCOPE} profile`,
    });
    expect(q.state?.length).toBeGreaterThanOrEqual(40);
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The verifier never leaves Junction: it is stored encrypted, not in the URL.
    expect(authorizationUrl).not.toContain("code_verifier");
    // The state is stored hashed, bound to the session and integration, with the verifier encrypted.
    const stored = await h.store.consumeOAuthState(sha256Hex(q.state as string), h.clock.now());
    expect(stored?.state).toMatchObject({ providerConfigKey: "cal", scopes: q.scope?.split(" ") });
    expect(stored?.state.codeVerifierEnc).toMatch(/^enc:v2:/);
    const verifierContext = secretContexts.codeVerifier(sha256Hex(q.state as string));
    expect(pkceS256(Encryptor.fromBase64(KEY).decrypt(stored?.state.codeVerifierEnc as string, verifierContext))).toBe(
      q.code_challenge as string,
    );
  });

  test("refuses an unknown or expired session and an integration the session does not allow", async () => {
    const h = await harness.start();
    await h.integration();
    await h.integration("other");
    await expect(
      h.client.startAuthorization({ providerConfigKey: "cal", connectSessionToken: "nope" }),
    ).rejects.toThrow(/Unknown connect session token/);
    const { token } = await h.client.createConnectSession({
      endUser: { id: "u" } as JsonObject,
      allowedIntegrations: ["cal"],
    });
    await expect(
      h.client.startAuthorization({ providerConfigKey: "other", connectSessionToken: token }),
    ).rejects.toThrow(/does not allow integration "other"/);
    await h.clock.advance(30 * 60_000);
    await expect(h.client.startAuthorization({ providerConfigKey: "cal", connectSessionToken: token })).rejects.toThrow(
      /connect session has expired/,
    );
    expect(h.fake.state.tokenRequests.total).toBe(0);
  });
});

describe("completing authorization", () => {
  test("creates the connection with encrypted credentials and emailAddressHash, announces it and enqueues a creation webhook", async () => {
    const h = await harness.start();
    await h.integration();
    const answer = await h.connect();
    expect(answer.outcome).toBe(AuthorizationOutcome.CONNECTED);
    expect(answer.created).toBe(true);
    const id = answer.connectionId;

    const { connection, credentials } = await h.client.getCredentials({ providerConfigKey: "cal", connectionId: id });
    expect(credentials?.accessToken).toMatch(/./);
    expect(credentials?.refreshToken).toMatch(/./);
    expect(Number(credentials?.expiresAtMs)).toBe(h.clock.now() + 3599_000);
    expect(connection?.connectionConfig).toEqual({ emailAddressHash: emailAddressHash("alice@example.com") });
    expect(connection?.endUser).toEqual({ id: "user-1", email: "alice@example.com" });
    // Encrypted at rest: the stored record does not hold the tokens.
    const envId = (await h.client.getEnvironment({})).environment?.id ?? "";
    const rec = await h.store.getConnection(envId, "cal", id);
    expect(rec?.credentialsEnc).toMatch(/^enc:v2:/);
    expect(rec?.credentialsEnc).not.toContain(credentials?.accessToken ?? "x");
    expect(rec?.credentialsEnc).not.toContain(credentials?.refreshToken ?? "x");

    expect(h.events).toEqual([`created:${id}`]);
    const [job] = await h.waitForDeliveries(1);
    expect(job?.type).toBe("auth");
    expect(job?.messageId).toMatch(/^msg_/);
    expect(job?.providerConfigKey).toBe("cal");
    expect(job?.connectionId).toBe(id);
    expect(bodyOf(job!)).toEqual({
      from: "junction",
      type: "auth",
      operation: "creation",
      success: true,
      connectionId: id,
      providerConfigKey: "cal",
      authMode: "OAUTH2",
      provider: "google-calendar",
      environment: "prod",
      endUser: { endUserId: "user-1", endUserEmail: "alice@example.com" },
      // Nango's tags derived from the session's end user, as on the connection.
      tags: { end_user_id: "user-1", end_user_email: "alice@example.com" },
    });
    expect(rec?.tags).toEqual({ end_user_id: "user-1", end_user_email: "alice@example.com" });
    // No token, code, verifier or secret in any log line.
    const logs = h.logLines.join("\n");
    for (const secret of [credentials?.accessToken, credentials?.refreshToken, CLIENT.clientSecret]) {
      expect(logs).not.toContain(secret as string);
    }
  });
});

describe("re-authorization", () => {
  test("keeps the connection id, keeps the old refresh token when none comes back, and announces re-authorized", async () => {
    const h = await harness.start();
    await h.integration();
    const first = await h.connect();
    const before = await h.client.getCredentials({ providerConfigKey: "cal", connectionId: first.connectionId });
    // The upstream answers this re-authorization without a refresh token.
    const minted = h.fake.issueTokens({
      clientId: CLIENT.clientId,
      scopes: ["openid", "email", CALENDAR_SCOPE],
      offline: false,
    });
    h.fake.setTokenEndpointBehavior(
      { status: 200, body: { access_token: minted.accessToken, expires_in: 3599, token_type: "Bearer" } },
      { times: 1 },
    );
    const again = await h.connect({ reconnect: first.connectionId });
    expect(again.outcome).toBe(AuthorizationOutcome.CONNECTED);
    expect(again.created).toBe(false);
    expect(again.connectionId).toBe(first.connectionId);
    const after = await h.client.getCredentials({ providerConfigKey: "cal", connectionId: first.connectionId });
    expect(after.connection?.id).toBe(before.connection?.id as string);
    expect(after.credentials?.accessToken).toBe(minted.accessToken);
    expect(after.credentials?.refreshToken).toBe(before.credentials?.refreshToken as string);
    expect(after.connection?.connectionConfig).toEqual({ emailAddressHash: emailAddressHash("alice@example.com") });
    expect(h.events).toEqual([`created:${first.connectionId}`, `reauthorized:${first.connectionId}`]);
    const jobs = await h.waitForDeliveries(2);
    expect(bodyOf(jobs[1]!)).toMatchObject({ operation: "override", success: true, connectionId: first.connectionId });
    const list = await h.client.listConnections({ providerConfigKey: "cal" });
    expect(list.total).toBe(1);
  });

  test("incremental authorization adds scopes to those granted before", async () => {
    const h = await harness.start();
    await h.integration("cal", { scopes: ["openid", "email"] });
    const first = await h.connect();
    const { token } = await h.client.createConnectSession({
      endUser: { id: "user-1" } as JsonObject,
      reconnectConnectionId: first.connectionId,
      reconnectProviderConfigKey: "cal",
    });
    const { authorizationUrl } = await h.client.startAuthorization({
      providerConfigKey: "cal",
      connectSessionToken: token,
      extraScopes: [CALENDAR_SCOPE],
      includeGrantedScopes: true,
    });
    const answer = await h.complete(await h.fake.authorize(authorizationUrl));
    expect(answer.outcome).toBe(AuthorizationOutcome.CONNECTED);
    const { credentials } = await h.client.getCredentials({
      providerConfigKey: "cal",
      connectionId: first.connectionId,
    });
    expect(String(credentials?.raw?.scope).split(" ").sort()).toEqual([CALENDAR_SCOPE, "email", "openid"].sort());
  });

  test("a reconnect session needs an existing connection", async () => {
    const h = await harness.start();
    await h.integration();
    await expect(
      h.client.createConnectSession({
        endUser: { id: "u" } as JsonObject,
        reconnectConnectionId: "missing",
        reconnectProviderConfigKey: "cal",
      }),
    ).rejects.toThrow(/No connection "missing"/);
  });
});
