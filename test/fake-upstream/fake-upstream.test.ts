import { describe, expect, test } from "bun:test";
import {
  REDIRECT_URI,
  CLIENT,
  CALENDAR_SCOPE,
  VERIFIER,
  DAY_MS,
  manualClock,
  authorizationUrl,
  codeFor,
  postToken,
  exchange,
  refresh,
  connect,
  api,
  INVALID_CREDENTIALS,
  useFakeUpstreams,
} from "./fake-upstream-test-kit.ts";

const { start } = useFakeUpstreams();

describe("OAuth", () => {
  test("issues tokens for a code exchanged with the right PKCE verifier", async () => {
    const fake = await start();
    const callback = await fake.authorize(authorizationUrl(fake));
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("state")).toBe("state-123");
    expect(callback.searchParams.get("scope")).toBe(`openid email ${CALENDAR_SCOPE}`);

    const response = await exchange(fake, callback.searchParams.get("code") ?? "");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ expires_in: 3599, token_type: "Bearer", scope: `openid email ${CALENDAR_SCOPE}` });
    expect(body.access_token).toBeString();
    expect(body.refresh_token).toBeString();
    expect(fake.state.tokenRequests.authorization_code).toBe(1);
  });

  test("rejects the wrong PKCE verifier and leaves the code usable", async () => {
    const fake = await start();
    const code = await codeFor(fake);
    const wrong = await exchange(fake, code, "not-the-verifier");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: "invalid_grant", error_description: "Invalid code verifier." });
    expect((await exchange(fake, code)).status).toBe(200);
  });

  test("accepts an authorization code only once", async () => {
    const fake = await start();
    const code = await codeFor(fake);
    expect((await exchange(fake, code)).status).toBe(200);
    const again = await exchange(fake, code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: "invalid_grant", error_description: "Bad Request" });
  });

  test("refuses a code redeemed with a different redirect_uri", async () => {
    const fake = await start();
    const response = await postToken(fake, {
      grant_type: "authorization_code",
      code: await codeFor(fake),
      redirect_uri: "http://127.0.0.1:9/elsewhere",
      code_verifier: VERIFIER,
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe("redirect_uri_mismatch");
  });

  test("issues a refresh token only for offline access", async () => {
    const fake = await start();
    const online = await connect(fake, { access_type: "online" });
    expect(online.refresh_token).toBeUndefined();
  });

  test("refreshes without returning a new refresh token and counts the request", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    const response = await refresh(fake, tokens.refresh_token);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.access_token).not.toBe(tokens.access_token);
    expect(body.refresh_token).toBeUndefined();
    expect(body.expires_in).toBe(3599);
    expect(fake.state.tokenRequests).toMatchObject({ authorization_code: 1, refresh_token: 1 });
  });

  test("rotates refresh tokens when configured", async () => {
    const fake = await start({ rotateRefreshTokens: true });
    const tokens = await connect(fake);
    const rotated = await (await refresh(fake, tokens.refresh_token)).json();
    expect(rotated.refresh_token).toBeString();
    expect((await refresh(fake, tokens.refresh_token)).status).toBe(400);
    expect((await refresh(fake, rotated.refresh_token)).status).toBe(200);
  });

  test("answers 'Token has been expired or revoked.' for a revoked refresh token", async () => {
    const fake = await start();
    const first = await connect(fake);
    const second = await connect(fake);
    const expected = { error: "invalid_grant", error_description: "Token has been expired or revoked." };

    expect(fake.revokeRefreshToken(first.refresh_token)).toBe(true);
    const revoked = await refresh(fake, first.refresh_token);
    expect(revoked.status).toBe(400);
    expect(await revoked.json()).toEqual(expected);

    fake.revokeAllFor("alice@example.com");
    expect(await (await refresh(fake, second.refresh_token)).json()).toEqual(expected);
    expect((await api(fake, "/calendar/v3/users/me/calendarList/primary", second.access_token)).status).toBe(401);
  });

  test("expires refresh tokens by the injected clock when given a lifetime", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now, refreshTokenTtlSeconds: 7 * 24 * 3600 });
    const tokens = await connect(fake);
    clock.advance(7 * DAY_MS);
    expect((await (await refresh(fake, tokens.refresh_token)).json()).error_description).toBe(
      "Token has been expired or revoked.",
    );
  });

  test("rejects an unknown client with invalid_client, in the body or HTTP Basic", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    const expected = { error: "invalid_client", error_description: "The OAuth client was not found." };
    const inBody = await postToken(fake, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "nope",
      client_secret: "x",
    });
    expect(inBody.status).toBe(401);
    expect(await inBody.json()).toEqual(expected);

    const basic = (id: string) => ({ authorization: `Basic ${btoa(`${id}:${CLIENT.clientSecret}`)}` });
    const badBasic = await postToken(
      fake,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token },
      basic("nope"),
    );
    expect(await badBasic.json()).toEqual(expected);
    const goodBasic = await postToken(
      fake,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token },
      basic(CLIENT.clientId),
    );
    expect(goodBasic.status).toBe(200);
  });

  test("redirects with access_denied when the user denies consent", async () => {
    const fake = await start();
    fake.setNextAuthorization({ deny: true });
    const callback = await fake.authorize(authorizationUrl(fake));
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("state-123");
    expect(callback.searchParams.get("code")).toBeNull();
  });

  test("answers prompt=none with consent_required until the scopes were granted", async () => {
    const fake = await start();
    const silent = await fake.authorize(authorizationUrl(fake, { prompt: "none" }));
    expect(silent.searchParams.get("error")).toBe("consent_required");
    await fake.authorize(authorizationUrl(fake));
    expect((await fake.authorize(authorizationUrl(fake, { prompt: "none" }))).searchParams.get("code")).toBeString();
  });

  test("adds earlier grants to the scope with include_granted_scopes", async () => {
    const fake = await start();
    await fake.authorize(authorizationUrl(fake, { scope: "email" }));
    const callback = await fake.authorize(
      authorizationUrl(fake, { scope: CALENDAR_SCOPE, include_granted_scopes: "true" }),
    );
    expect(callback.searchParams.get("scope")).toBe(`email ${CALENDAR_SCOPE}`);
  });

  test("shows an error page instead of redirecting for an unknown client", async () => {
    const fake = await start();
    const response = await fetch(authorizationUrl(fake, { client_id: "unknown" }), { redirect: "manual" });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("invalid_client");
  });

  test("completes consent through the Allow form in interactive mode", async () => {
    const fake = await start({ interactive: true });
    const page = await fetch(authorizationUrl(fake, { login_hint: "bob@example.com" }));
    const html = await page.text();
    expect(html).toContain('id="allow"');
    const form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      form.append(
        name ?? "",
        (value ?? "").replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))),
      );
    }
    form.set("login_email", "bob@example.com");
    form.set("decision", "allow");
    const approved = await fetch(`${fake.url}/o/oauth2/v2/auth/approve`, {
      method: "POST",
      body: form,
      redirect: "manual",
    });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const tokens = await (await exchange(fake, code)).json();
    const me = await (await api(fake, "/oauth2/v3/userinfo", tokens.access_token)).json();
    expect(me).toMatchObject({ email: "bob@example.com", email_verified: true });
  });

  test("signs an ID token for openid scopes that verifies against the JWKS", async () => {
    const fake = await start();
    const tokens = await connect(fake, { nonce: "n-1" });
    const [header = "", payload = "", signature = ""] = (tokens.id_token ?? "").split(".");
    const { keys } = await (await fetch(fake.endpoints.jwksUrl)).json();
    const key = await crypto.subtle.importKey("jwk", keys[0], { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
      "verify",
    ]);
    const valid = await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      key,
      Buffer.from(signature, "base64url"),
      new TextEncoder().encode(`${header}.${payload}`),
    );
    expect(valid).toBe(true);
    expect(JSON.parse(Buffer.from(payload, "base64url").toString())).toMatchObject({
      iss: "https://accounts.google.com",
      aud: CLIENT.clientId,
      email: "alice@example.com",
      nonce: "n-1",
    });
  });
});

describe("token endpoint failure modes", () => {
  test("answers an HTML error page", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    fake.setTokenEndpointBehavior("html");
    const response = await refresh(fake, tokens.refresh_token);
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toContain("text/html");
  });

  test("never answers in timeout mode", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    fake.setTokenEndpointBehavior("timeout");
    const attempt = fetch(fake.endpoints.tokenUrl, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }),
      signal: AbortSignal.timeout(200),
    });
    await expect(attempt).rejects.toThrow();
    expect(fake.state.tokenRequestLog.at(-1)?.status).toBeUndefined();
  });

  test("omits expires_in in no-expires-in mode", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    fake.setTokenEndpointBehavior("no-expires-in");
    const body = await (await refresh(fake, tokens.refresh_token)).json();
    expect(body.access_token).toBeString();
    expect(body).not.toHaveProperty("expires_in");
  });

  test("serves a canned response for the given number of requests, then recovers", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    fake.setTokenEndpointBehavior({ status: 503, body: { error: "temporarily_unavailable" } }, { times: 1 });
    const failed = await refresh(fake, tokens.refresh_token);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ error: "temporarily_unavailable" });
    expect((await refresh(fake, tokens.refresh_token)).status).toBe(200);
  });

  test("holds token requests for the configured delay so concurrent ones overlap", async () => {
    const fake = await start();
    const tokens = await connect(fake);
    fake.setTokenDelay(300);
    const refreshes = Promise.all([1, 2, 3].map(() => refresh(fake, tokens.refresh_token)));
    await fake.waitFor((s) => s.tokenConcurrency.inFlight === 3, 2000, "three refreshes in flight");
    expect((await refreshes).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(fake.state.tokenConcurrency.peak).toBe(3);
    expect(fake.state.tokenRequests.refresh_token).toBe(3);
  });
});

describe("API authentication", () => {
  test("answers Google's 401 body for a missing or unknown token", async () => {
    const fake = await start();
    for (const token of [undefined, "ya29.not-a-token"]) {
      const response = await api(fake, "/calendar/v3/users/me/calendarList/primary", token);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(INVALID_CREDENTIALS);
    }
  });

  test("rejects an access token once the injected clock passes its expiry", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now, accessTokenTtlSeconds: 60 });
    const tokens = await connect(fake);
    const profile = "/gmail/v1/users/me/profile";
    expect((await api(fake, profile, tokens.access_token)).status).toBe(200);
    clock.advance(60_000);
    expect((await api(fake, profile, tokens.access_token)).status).toBe(401);
  });

  test("answers 403 for a token without the API's scope when scopes are enforced", async () => {
    const fake = await start({ enforceScopes: true });
    const { accessToken } = fake.issueTokens({ scopes: ["email"] });
    expect((await api(fake, "/calendar/v3/users/me/calendarList/primary", accessToken)).status).toBe(403);
  });

  test("with scopes enforced, calendar.readonly reads events but cannot write one; calendar.events can", async () => {
    const fake = await start({ enforceScopes: true });
    fake.addUser({ email: "alice@example.com" });
    const AUTH = "https://www.googleapis.com/auth";
    const events = "/calendar/v3/calendars/primary/events";
    const event = {
      summary: "x",
      start: { dateTime: "2026-12-01T10:00:00Z" },
      end: { dateTime: "2026-12-01T11:00:00Z" },
    };
    const reader = fake.issueTokens({ email: "alice@example.com", scopes: [`${AUTH}/calendar.readonly`] }).accessToken;
    expect((await api(fake, events, reader)).status).toBe(200);
    const refused = await api(fake, events, reader, { method: "POST", body: event });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("insufficient authentication scopes");
    const writer = fake.issueTokens({ email: "alice@example.com", scopes: [`${AUTH}/calendar.events`] }).accessToken;
    expect((await api(fake, events, writer, { method: "POST", body: event })).status).toBe(200);
    expect((await api(fake, "/calendar/v3/users/me/calendarList/primary", writer)).status).toBe(403);
  });
});

describe("Gmail", () => {
  test("returns the mailbox profile", async () => {
    const fake = await start();
    fake.addUser({ email: "alice@example.com", messagesTotal: 42, threadsTotal: 7 });
    const { accessToken } = fake.issueTokens({});
    const response = await api(fake, "/gmail/v1/users/me/profile", accessToken);
    expect(await response.json()).toEqual({
      emailAddress: "alice@example.com",
      messagesTotal: 42,
      threadsTotal: 7,
      historyId: "1000",
    });
  });

  test("sends a message posted as base64url raw", async () => {
    const fake = await start();
    const { accessToken } = fake.issueTokens({});
    const raw = Buffer.from("To: bob@example.com\r\nSubject: hi\r\n\r\nhello").toString("base64url");
    const response = await api(fake, "/gmail/v1/users/me/messages/send", accessToken, {
      method: "POST",
      body: { raw },
    });
    expect(await response.json()).toMatchObject({ labelIds: ["SENT"] });
    expect(fake.state.sentMessages[0]?.raw).toContain("Subject: hi");
  });
});
